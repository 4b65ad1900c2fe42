import { ensureAdminToken } from "../../admin/adminToken.ts";
import { createApiKey, listApiKeys, revokeApiKey, type KeyType } from "../../auth/apiKeys.ts";
import { createProject, listProjects, resolveProject } from "../../projects/projectService.ts";
import { optionalFlag, requireFlag } from "../args.ts";
import { UsageError, type Command } from "../cliTypes.ts";

export const initCommand: Command = {
  name: "init",
  usage: "lorehold init [--data-dir DIR] [--json]",
  summary: "create the data dir and the admin token (idempotent)",
  run(c) {
    const ctx = c.services();
    const r = ensureAdminToken(ctx.db);
    return {
      json: r.created ? { adminToken: r.adminToken } : { adminToken: r.adminToken, existing: true },
      text: r.created
        ? `Initialised ${c.config.dataDir}\nAdmin token: ${r.adminToken}`
        : `Already initialised (${c.config.dataDir}); keeping the existing admin token.\nAdmin token: ${r.adminToken}`,
    };
  },
};

export const projectCreateCommand: Command = {
  name: "project create",
  usage: "lorehold project create --name NAME [--team TEAM_ID] [--data-dir DIR] [--json]",
  summary: "create a project (and a team on the default plan)",
  run(c) {
    const name = requireFlag(c.flags, "name", this.usage);
    const p = createProject(c.services(), {
      name,
      teamId: optionalFlag(c.flags, "team"),
      monthlyCredits: c.config.defaultMonthlyCredits,
    });
    return { json: { id: p.id, name: p.name, teamId: p.teamId }, text: `Created project ${p.name} (${p.id}) in team ${p.teamId}` };
  },
};

export const projectListCommand: Command = {
  name: "project list",
  usage: "lorehold project list [--data-dir DIR] [--json]",
  summary: "list projects",
  run(c) {
    const projects = listProjects(c.services());
    return {
      json: { projects },
      text: projects.length ? projects.map((p) => `${p.id}  ${p.name}  (team ${p.teamId})`).join("\n") : "No projects yet.",
    };
  },
};

export const keyCreateCommand: Command = {
  name: "key create",
  usage: "lorehold key create --project P --type server|editor [--name N] [--data-dir DIR] [--json]",
  summary: "create an API key (shown once)",
  run(c) {
    const type = requireFlag(c.flags, "type", this.usage);
    if (type !== "server" && type !== "editor") throw new UsageError("--type must be server or editor", this.usage);
    const ctx = c.services();
    const project = resolveProject(ctx, requireFlag(c.flags, "project", this.usage));
    const k = createApiKey(ctx, { projectId: project.id, type: type as KeyType, name: optionalFlag(c.flags, "name") });
    return {
      json: { id: k.id, key: k.key, type: k.type, projectId: k.projectId },
      text: `Created ${type} key ${k.id} for ${project.name}.\n${k.key}\nThis is the only time the key is shown.`,
    };
  },
};

export const keyListCommand: Command = {
  name: "key list",
  usage: "lorehold key list --project P [--data-dir DIR] [--json]",
  summary: "list a project's keys (never the secret)",
  run(c) {
    const ctx = c.services();
    const project = resolveProject(ctx, requireFlag(c.flags, "project", this.usage));
    const keys = listApiKeys(ctx, project.id);
    return {
      json: { keys },
      text: keys.length
        ? keys.map((k) => `${k.id}  ${k.type.padEnd(6)}  ${k.display}  ${k.revokedAt ? "revoked " + k.revokedAt : "active"}${k.name ? "  " + k.name : ""}`).join("\n")
        : "No keys.",
    };
  },
};

export const keyRevokeCommand: Command = {
  name: "key revoke",
  usage: "lorehold key revoke KEY_ID [--data-dir DIR] [--json]",
  summary: "revoke a key",
  run(c) {
    const id = c.positionals[0];
    if (!id) throw new UsageError("missing KEY_ID", this.usage);
    const r = revokeApiKey(c.services(), id);
    return { json: r, text: `Revoked ${id}` };
  },
};
