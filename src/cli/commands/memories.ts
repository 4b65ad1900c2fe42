import type { Command } from "../cliTypes.ts";

/** `memories list|export|erase --project P --player X`. */
export const memoryCommands: Command[] = [];
