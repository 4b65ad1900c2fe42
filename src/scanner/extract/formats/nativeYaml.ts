/**
 * YAML through Bun's native parser, for speed: the `yaml` library costs ~0.6 ms/KB warm and several times that
 * cold (a scan's first files), Bun's parser about a tenth of it. Only for text where both give the same tree
 * (test/scanner/extract/nativeYaml.test.ts compares them): one document, no anchors, aliases or tags (an alias
 * bomb must meet the `yaml` library's alias limit), no complex or null keys (they are stringified differently),
 * no directives. Everything else, and every text the native parser rejects, is left to `yaml`, so its errors
 * (shown to reviewers as skip reasons) stay its own.
 */

/** `---`, `...` or `%` at a line's start: several documents, or directives (`%YAML 1.1` changes the schema). */
const DOCUMENT_MARKS = /^(?:---|\.\.\.|%)/m;
/** An anchor (`&a`), alias (`*a`) or tag (`!t`, `!!str`) where a node may start; in quoted text it only costs the fast path. */
const NODE_PROPERTIES = /(?:^|[\s\[{,:\-?])[&*!][^\s]/;
/**
 * Keys stringified differently: null or empty keys (`~:`, `null:`, `{ : a}`), flow collections as keys (`[a, b]: c`,
 * found by their end), explicit keys (`? a`). Flow collections as values (`- [RES.GOLD, 1]`) are fine.
 */
const ODD_KEYS = /(?:^|[\s{,])(?:~|null|Null|NULL)?[ \t]*:(?:[ \t]|$)|^[ \t]*(?:-[ \t]+)*\?(?:[ \t]|$)|[\]}][ \t]*:(?:[ \t]|$)/m;

/** The parsed tree when the text is plain enough for the native parser, else undefined (use `yaml`). */
export function parseNativeYaml(text: string): { value: unknown } | undefined {
  if (DOCUMENT_MARKS.test(text) || NODE_PROPERTIES.test(text) || ODD_KEYS.test(text)) return undefined;
  try {
    return { value: Bun.YAML.parse(text) };
  } catch {
    return undefined;
  }
}
