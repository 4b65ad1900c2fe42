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
import { quickstartCommand } from "./quickstart.ts";
import { exportCommand, importCommand } from "./packs.ts";
import { exportCardCommand } from "./cards.ts";
import { loreTestCommand } from "./loreTests.ts";
import { memoryCommands } from "./memories.ts";
import { modelCommands } from "./models.ts";
import { backendsCheckCommand } from "./backends.ts";
import { creditsGrantCommand, creditsPlanCommand, creditsShowCommand, limitsSetCommand, settingsSetCommand } from "./operations.ts";

/** Every CLI command, in the order `lorehold help` lists them. */
export const COMMANDS: Command[] = [
  serveCommand,
  quickstartCommand,
  initCommand,
  projectCreateCommand,
  projectListCommand,
  keyCreateCommand,
  keyListCommand,
  keyRevokeCommand,
  importCommand,
  exportCommand,
  exportCardCommand,
  loreTestCommand,
  creditsShowCommand,
  creditsGrantCommand,
  creditsPlanCommand,
  settingsSetCommand,
  limitsSetCommand,
  ...memoryCommands,
  ...modelCommands,
  backendsCheckCommand,
];
