/** Whether a validator accepts a body (returns rather than throws): to compare it with a schema model. */
export function accepts(validate: (body: unknown) => unknown): (body: unknown) => boolean {
  return (body) => {
    try {
      validate(body);
      return true;
    } catch {
      return false;
    }
  };
}
