import {
  ChatWrapper,
  LlamaText,
  resolveChatWrapper,
  SpecialToken,
  type ChatWrapperGenerateContextStateOptions,
  type ChatWrapperGeneratedContextState,
  type LlamaModel,
} from "node-llama-cpp";

/**
 * The layout for a model that carries no chat template of its own (a base model such as Gemma 3 270M): the
 * conversation as a plain transcript, each turn a paragraph, and the reply's turn opened with the speaker's name
 * as in a script (`Idris Vane:`), the model left on that line.
 *
 * Why: a base model was never trained on turn markers. Given node-llama-cpp's fallback for Gemma
 * (`<start_of_turn>user … <start_of_turn>model`), Gemma 3 270M went on with the start of the text it had just
 * read, "You are Idris Vane, Keeper of …": the system prompt recited in 26 of 60 returned replies on the held-out
 * world (BENCHMARKS.md, "The smallest models"). A base model continues text, so the text must end where the
 * character's line begins.
 */
export class TranscriptChatWrapper extends ChatWrapper {
  readonly wrapperName = "Transcript";
  override readonly settings = { ...ChatWrapper.defaultSettings, supportsSystemMessages: true };

  override generateContextState({ chatHistory }: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState {
    const parts: LlamaText[] = [];
    let onLabel = false;
    chatHistory.forEach((item, i) => {
      const last = i === chatHistory.length - 1;
      if (item.type === "system") parts.push(LlamaText([LlamaText.fromJSON(item.text), "\n\n"]));
      // A turn that ends by naming the next speaker ("Idris Vane:") leaves the model on that line, mid-script.
      else if (item.type === "user") {
        onLabel = item.text.endsWith(":");
        parts.push(LlamaText([item.text, onLabel ? "" : "\n"]));
      }
      // The open turn (the last item) is what the model writes: nothing after it. An earlier reply on a label's
      // line gets the space the model wrote there (the reply was trimmed), so the cached prefix still matches.
      else parts.push(LlamaText([onLabel && !last ? " " : "", this.generateModelResponseText(item.response), last ? "" : "\n\n"]));
    });
    return {
      contextText: LlamaText([new SpecialToken("BOS"), ...parts]),
      // A blank line ends a turn of the transcript; a line opening with a heading starts the next one.
      stopGenerationTriggers: [LlamaText(new SpecialToken("EOS")), LlamaText("\n\n"), LlamaText("\n[")],
    };
  }
}

/**
 * The label that opens `speaker`'s turn when `wrapper` lays the conversation out as a transcript (appended to
 * the turn before it, toChatHistory.ts); nothing for a chat template, whose own markers open the reply.
 */
export function replyOpening(wrapper: ChatWrapper, speaker: string | undefined): string | undefined {
  if (!(wrapper instanceof TranscriptChatWrapper) || !speaker?.trim()) return undefined;
  return `\n\n${speaker.replace(/[[\]\n:]/g, " ").trim()}:`;
}

/** The model's own chat template (node-llama-cpp maps it to a built-in wrapper or runs its Jinja), or a transcript when it has none. */
export function chatWrapperFor(model: LlamaModel): ChatWrapper {
  const template = (model.fileInfo.metadata as { tokenizer?: { chat_template?: unknown } }).tokenizer?.chat_template;
  if (typeof template !== "string" || template.trim() === "") return new TranscriptChatWrapper();
  return resolveChatWrapper(model);
}
