/** DESIGN.md "Built-in relationship types", with each one's inverse. */
export const BUILT_IN_TYPES = [
  "FRIEND", "RIVAL", "MENTOR", "STUDENT", "FAMILY", "ROMANTIC", "ALLY", "ENEMY", "EMPLOYER", "EMPLOYEE", "NEUTRAL",
] as const;
export type BuiltInType = (typeof BUILT_IN_TYPES)[number];

const INVERSE: Partial<Record<BuiltInType, BuiltInType>> = {
  MENTOR: "STUDENT",
  STUDENT: "MENTOR",
  EMPLOYER: "EMPLOYEE",
  EMPLOYEE: "EMPLOYER",
};

/** The type as seen from the other side (symmetric types are their own inverse). */
export function inverseOf(t: BuiltInType): BuiltInType {
  return INVERSE[t] ?? t;
}

export function isBuiltInType(t: unknown): t is BuiltInType {
  return typeof t === "string" && (BUILT_IN_TYPES as readonly string[]).includes(t);
}
