/** The words beside a kept secret's name in a prompt (`About <name> <mark>: <text>`): a leaf module, no store behind it. */
export const SECRET_MARK = "(your secret: you know it, but you never tell it to anyone)";
