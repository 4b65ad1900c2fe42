import { ApiError } from "../../core/errors.ts";

/**
 * Field checks shared by every authoring service and the lore-pack
 * validator. Each returns a problem string ("path: reason") or null, so a
 * caller can collect every problem before refusing the whole input.
 */
export class Problems {
  readonly list: string[] = [];
  add(path: string, reason: string): void {
    this.list.push(`${path}: ${reason}`);
  }
  get ok(): boolean {
    return this.list.length === 0;
  }
  /** 400 Invalid request listing every problem, when there is any. */
  throwIfAny(error = "Invalid request"): void {
    if (!this.ok) throw new ApiError(400, error, { details: this.list });
  }

  requiredString(path: string, v: unknown, max: number): string | undefined {
    if (typeof v !== "string" || v.trim() === "") {
      this.add(path, "required, a non-empty string");
      return undefined;
    }
    if (v.length > max) this.add(path, `at most ${max} characters`);
    return v.trim();
  }

  optionalString(path: string, v: unknown, max: number): string | null | undefined {
    if (v === undefined) return undefined;
    if (v === null) return null;
    if (typeof v !== "string") {
      this.add(path, "must be a string or null");
      return undefined;
    }
    if (v.length > max) this.add(path, `at most ${max} characters`);
    return v;
  }

  stringList(path: string, v: unknown, maxItems: number, maxLen: number): string[] | undefined {
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) {
      this.add(path, "must be a list of strings");
      return undefined;
    }
    if (v.length > maxItems) this.add(path, `at most ${maxItems} items`);
    const out: string[] = [];
    v.forEach((item, i) => {
      if (typeof item !== "string" || item.trim() === "") this.add(`${path}[${i}]`, "must be a non-empty string");
      else if (item.length > maxLen) this.add(`${path}[${i}]`, `at most ${maxLen} characters`);
      else out.push(item.trim());
    });
    return out;
  }

  color(path: string, v: unknown, required: boolean): string | null | undefined {
    if (v === undefined && !required) return undefined;
    if (v === null && !required) return null;
    if (typeof v !== "string" || !/^#[0-9a-fA-F]{6}$/.test(v)) {
      this.add(path, "must be a colour like #aa5500");
      return undefined;
    }
    return v.toLowerCase();
  }

  boolean(path: string, v: unknown): boolean | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "boolean") {
      this.add(path, "must be true or false");
      return undefined;
    }
    return v;
  }

  unknownKeys(path: string, obj: Record<string, unknown>, allowed: readonly string[]): void {
    for (const k of Object.keys(obj)) if (!allowed.includes(k)) this.add(path ? `${path}.${k}` : k, "unknown field");
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export const LIMITS = {
  name: 200,
  tagName: 100,
  text: 20_000,
  longText: 100_000,
  documentContent: 2_000_000,
  listItems: 100,
  listItemLength: 1_000,
  key: 200,
} as const;
