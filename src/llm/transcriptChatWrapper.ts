import {
  ChatWrapper,
  LlamaText,
  resolveChatWrapper,
  SpecialToken,
  type ChatWrapperGenerateContextStateOptions,
  type ChatWrapperGeneratedContextState,
  type LlamaModel,
} from "node-llama-cpp";
import { bosOnce } from "./bosOnce.ts";
import { chatLayout } from "./chatLayout.ts";
import { TRANSCRIPT_LAYOUT, transcriptSystem, transcriptUserTurn, type TranscriptLayout } from "./transcriptTurn.ts";

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

  constructor(private readonly layout: TranscriptLayout = TRANSCRIPT_LAYOUT) {
    super();
  }

  override generateContextState({ chatHistory }: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState {
    const parts: LlamaText[] = [];
    let onLabel = false;
    const speaker = speakerOf(chatHistory);
    chatHistory.forEach((item, i) => {
      const last = i === chatHistory.length - 1;
      if (item.type === "system") {
        const text = LlamaText.fromJSON(item.text);
        // Plain text (every system prompt the server writes) can be re-laid; special tokens are kept as they are.
        const plain = typeof item.text === "string" ? item.text : null;
        parts.push(LlamaText([plain === null ? text : transcriptSystem(plain, speaker, this.layout), "\n\n"]));
      }
      // A turn that ends by naming the next speaker ("Idris Vane:") leaves the model on that line, mid-script.
      else if (item.type === "user") {
        const label = labelAtEnd(item.text);
        onLabel = item.text.endsWith(":");
        if (label === null) parts.push(LlamaText([item.text, onLabel ? "" : "\n"]));
        else {
          const turn = transcriptUserTurn(item.text.slice(0, item.text.length - label.length), speaker, this.layout);
          // In a script the speaker's line follows the player's directly.
          parts.push(LlamaText([turn, this.layout.player === "script" ? label.replace(/^\n\n/, "\n") : label]));
        }
      }
      // The open turn (the last item) is what the model writes: nothing after it. An earlier reply on a label's
      // line gets the space the model wrote there (the reply was trimmed), so the cached prefix still matches.
      else parts.push(LlamaText([onLabel && !last ? " " : "", this.generateModelResponseText(item.response), last ? "" : "\n\n"]));
    });
    // A blank line ends a turn of the transcript, a line opening with a heading starts the next one (the engine's
    // own stops end it at a role label, "Player:"); in a one-line layout any line break does.
    const stops = this.layout.oneLine ? ["\n"] : ["\n\n", "\n["];
    // A model that starts writing the next turn's notes itself (the block's title or a line of its list) has ended its line.
    // The naive-style layout shows that block in its example only: the same stops (the naive baseline's arm has them).
    if (speaker && (this.layout.notes === "knows" || (this.layout.example && this.layout.exampleNotes === "knows"))) stops.push(`What ${speaker} knows:`, "\n- ");
    // In a script a line that opens with the speaker's own name is the speaker's next turn: the model wrote a line
    // for someone else before it (seen on the tuning worlds: "Wend Water.\nWhat is your house porter called?\nGarrick Thorne: …").
    if (speaker && this.layout.player === "script") stops.push(`\n${speaker}:`);
    return {
      contextText: LlamaText([new SpecialToken("BOS"), ...parts]),
      stopGenerationTriggers: [LlamaText(new SpecialToken("EOS")), ...stops.map((s) => LlamaText(s))],
    };
  }
}

/** The opening label a user turn ends with (`\n\nIdris Vane:`, replyOpening below), or null. */
function labelAtEnd(text: string): string | null {
  return /\n\n[^\n:[\]]+:$/.exec(text)?.[0] ?? null;
}

/** Who speaks: the name of the label that opens the reply's turn (the last user turn's), if any. */
function speakerOf(history: ChatWrapperGenerateContextStateOptions["chatHistory"]): string | undefined {
  const lastUser = history.findLast((h) => h.type === "user");
  const label = lastUser?.type === "user" ? labelAtEnd(lastUser.text) : null;
  return label ? label.slice(2, -1) : undefined;
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
  if (typeof template !== "string" || template.trim() === "") return bosOnce(new TranscriptChatWrapper(), model);
  return bosOnce(chatLayout(resolveChatWrapper(model)), model);
}
