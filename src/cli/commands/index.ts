import type { Command } from "../cliTypes.ts";
import {
  initCommand,
  keyCreateCommand,
  keyListCommand,
  keyRevokeCommand,
  projectCreateCommand,
  projectListCommand,
} from "./basics.ts";
import { serveCommand } from "./serve.ts";
import { memoryCommands } from "./memories.ts";
import { creditsGrantCommand, creditsPlanCommand, creditsShowCommand, limitsSetCommand, settingsSetCommand } from "./operations.ts";

/** Every CLI command, in the order `lorehold help` lists them. */
export const COMMANDS: Command[] = [
  serveCommand,
  initCommand,
  projectCreateCommand,
  projectListCommand,
  keyCreateCommand,
  keyListCommand,
  keyRevokeCommand,
  creditsShowCommand,
  creditsGrantCommand,
  creditsPlanCommand,
  settingsSetCommand,
  limitsSetCommand,
  ...memoryCommands,
];
