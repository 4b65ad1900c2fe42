/**
 * DESIGN.md "Knowledge scoping": visible = the mind's tags ∩ activeKnowledgeTags
 * (when given). activeKnowledgeTags can only narrow: names that are not the
 * mind's are ignored and reported.
 */
export function visibleTags(mindTags: string[], active: string[] | undefined): { tags: string[]; ignored: string[] } {
  if (active === undefined) return { tags: [...mindTags], ignored: [] };
  const own = new Set(mindTags);
  const wanted = new Set(active);
  return {
    tags: mindTags.filter((t) => wanted.has(t)),
    ignored: [...wanted].filter((t) => !own.has(t)),
  };
}

export function ignoredTagsWarning(ignored: string[]): string {
  return `Ignored activeKnowledgeTags not configured for this Entity Mind: ${ignored.join(", ")}`;
}
