import { LlamaText, SpecialToken, SpecialTokensText, type ChatWrapper, type LlamaModel } from "node-llama-cpp";

/**
 * Makes `wrapper` open the prompt with BOS only where the model wants one: the GGUF's tokenizer says whether to add
 * BOS (`tokenizer.ggml.add_bos_token`), and a template whose first marker already is the BOS token gets no second.
 *
 * Why: node-llama-cpp's built-in ChatML wrapper opens every prompt with BOS. SmolLM2's BOS token *is*
 * `<|im_start|>` and its GGUF says not to add one, so each prompt began `<|im_start|><|im_start|>system`: a turn
 * marker standing alone, a shape the model never saw in training. The wrapper instance is changed in place, as
 * node-llama-cpp's chat code and ours both call it.
 */
export function bosOnce<W extends ChatWrapper>(wrapper: W, model: LlamaModel): W {
  const bos = model.tokens.bos;
  if (bos === null) return wrapper;
  const firstIsBos = (value: unknown) => value instanceof SpecialTokensText && value.tokenize(model.tokenizer)[0] === bos;
  const inner = wrapper.generateContextState.bind(wrapper);
  wrapper.generateContextState = (options) => {
    const state = inner(options);
    const [first, next] = state.contextText.values;
    const leadingBos = first instanceof SpecialToken && first.value === "BOS";
    if (!leadingBos || (model.tokens.shouldPrependBosToken && !firstIsBos(next))) return state;
    return { ...state, contextText: LlamaText(state.contextText.values.slice(1)) };
  };
  return wrapper;
}
