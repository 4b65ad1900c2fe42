/**
 * The words beside a kept secret's name in a prompt (`About <name> <mark>: <text>`): a leaf module, so the engine can
 * find a secret's note in a prompt it is given (src/llm/smallestChatModels.ts) without the secrets' stores.
 */
export const SECRET_MARK = "(your secret: you know it, but you never tell it to anyone)";
