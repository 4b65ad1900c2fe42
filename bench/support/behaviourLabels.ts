// The labelled set for bench/behaviourAccuracy.ts, written before anything was measured: a shopkeeper with a
// small action catalogue, player lines that call for one specific action with specific parameters, and lines
// that call for none (at least 40 % of the set), each with the emotion a reader would expect.

export const shopkeeper = {
  name: "Bram",
  system:
    "You are Bram, the shopkeeper of the north gate market, a character in a game. Stay in character and answer in a few sentences.\n" +
    "Personality: gruff but fair; loves a good bargain; hates thieves.",
  behaviour: {
    emotions: ["neutral", "happy", "angry", "afraid", "sad"],
    maxActionsPerTurn: 2,
    actions: [
      { name: "give_item", description: "Hand an item to the player (when they buy it, are owed it, or you gift it).", params: { type: "object", properties: { item: { type: "string", "x-ref": "item" } } } },
      { name: "set_price", description: "Set the price in gold of an item you sell (when haggling or asked to change it).", params: { type: "object", properties: { item: { type: "string", "x-ref": "item" }, price: { type: "integer", minimum: 1, maximum: 500 } } } },
      { name: "call_guard", description: "Shout for the town guard when someone threatens you or steals." },
      { name: "open_door", description: "Open one of the shop's doors.", params: { type: "object", properties: { door: { type: "string", enum: ["front", "back", "cellar"] } } } },
    ],
  },
  items: ["Iron key", "Map of the tunnels", "Healing draught", "Lantern"],
};

export interface LabelledTurn {
  line: string;
  /** the one action the line calls for, with the parameters it names; null: no action is called for */
  action: { name: string; params: Record<string, unknown> } | null;
  emotion: string;
}

export const labelledTurns: LabelledTurn[] = [
  // give_item
  { line: "Here are the ten gold for the iron key. Please hand it over.", action: { name: "give_item", params: { item: "Iron key" } }, emotion: "happy" },
  { line: "I paid for the lantern yesterday, can I have it now?", action: { name: "give_item", params: { item: "Lantern" } }, emotion: "neutral" },
  { line: "I'm bleeding badly, please give me a healing draught, I've paid already!", action: { name: "give_item", params: { item: "Healing draught" } }, emotion: "afraid" },
  { line: "Deal. Here's your coin, give me the map of the tunnels.", action: { name: "give_item", params: { item: "Map of the tunnels" } }, emotion: "happy" },
  { line: "You promised me the iron key if I fixed your roof. The roof is fixed. Give me the key.", action: { name: "give_item", params: { item: "Iron key" } }, emotion: "neutral" },
  { line: "Happy birthday, Bram! Here's the gold I owe you, now hand me that lantern as we agreed.", action: { name: "give_item", params: { item: "Lantern" } }, emotion: "happy" },
  // set_price
  { line: "Forty gold for the lantern is robbery. Make it twenty and we have a deal.", action: { name: "set_price", params: { item: "Lantern", price: 20 } }, emotion: "neutral" },
  { line: "I'll give you 100 gold for the map of the tunnels, final offer. Set the price.", action: { name: "set_price", params: { item: "Map of the tunnels", price: 100 } }, emotion: "happy" },
  { line: "The healing draught should cost 15 gold, like at every other shop. Lower it to 15.", action: { name: "set_price", params: { item: "Healing draught", price: 15 } }, emotion: "neutral" },
  { line: "Please set the iron key's price to 50 gold, I'll buy it tomorrow.", action: { name: "set_price", params: { item: "Iron key", price: 50 } }, emotion: "neutral" },
  { line: "Would you go down to 30 gold for the lantern? I'm a regular.", action: { name: "set_price", params: { item: "Lantern", price: 30 } }, emotion: "happy" },
  { line: "The map is old and torn. Price it at 5 gold, no more.", action: { name: "set_price", params: { item: "Map of the tunnels", price: 5 } }, emotion: "neutral" },
  // call_guard
  { line: "Hand over your gold or I'll burn this shop down!", action: { name: "call_guard", params: {} }, emotion: "afraid" },
  { line: "I just stuffed three healing draughts in my coat. What are you going to do about it?", action: { name: "call_guard", params: {} }, emotion: "angry" },
  { line: "Don't move, old man. This knife says the till is mine now.", action: { name: "call_guard", params: {} }, emotion: "afraid" },
  { line: "Some thief just ran out of your shop with your lantern!", action: { name: "call_guard", params: {} }, emotion: "angry" },
  { line: "I'm going to smash every bottle on your shelves unless you pay me.", action: { name: "call_guard", params: {} }, emotion: "angry" },
  // open_door
  { line: "Could you open the cellar door? I want to see the barrels you mentioned.", action: { name: "open_door", params: { door: "cellar" } }, emotion: "neutral" },
  { line: "My cart is out back, please open the back door so I can load the crates.", action: { name: "open_door", params: { door: "back" } }, emotion: "neutral" },
  { line: "The front door is locked and I'm standing in the rain, let me in!", action: { name: "open_door", params: { door: "front" } }, emotion: "sad" },
  { line: "Open the back door, the smoke from the forge is choking us!", action: { name: "open_door", params: { door: "back" } }, emotion: "afraid" },
  { line: "Please unlock the front door, the guards are waiting outside to inspect your goods.", action: { name: "open_door", params: { door: "front" } }, emotion: "neutral" },
  // none
  { line: "Good morning, Bram! Lovely weather today.", action: null, emotion: "happy" },
  { line: "What do you know about the smugglers in the tunnels?", action: null, emotion: "neutral" },
  { line: "How long have you run this shop?", action: null, emotion: "neutral" },
  { line: "Thank you for your help yesterday, friend.", action: null, emotion: "happy" },
  { line: "My brother died in the mine collapse last week.", action: null, emotion: "sad" },
  { line: "What does the iron key open?", action: null, emotion: "neutral" },
  { line: "How much is the lantern?", action: null, emotion: "neutral" },
  { line: "You're the worst merchant in this whole town, everyone says so.", action: null, emotion: "angry" },
  { line: "I heard wolves howling near the north gate last night.", action: null, emotion: "afraid" },
  { line: "Do you have any family in the city?", action: null, emotion: "neutral" },
  { line: "I'm just looking around, thanks.", action: null, emotion: "neutral" },
  { line: "Your prices are fair, I'll tell my friends about your shop.", action: null, emotion: "happy" },
  { line: "Is the map of the tunnels accurate?", action: null, emotion: "neutral" },
  { line: "I finally got married yesterday!", action: null, emotion: "happy" },
  { line: "Do you think it will rain tomorrow?", action: null, emotion: "neutral" },
  { line: "The baker told me you cheated him at cards.", action: null, emotion: "angry" },
  { line: "I lost my dog in the market this morning.", action: null, emotion: "sad" },
  { line: "What's the best way to the harbour from here?", action: null, emotion: "neutral" },
  { line: "Tell me a story about your days as a soldier.", action: null, emotion: "neutral" },
  { line: "Someone said a dragon was seen over the hills. Is that true?", action: null, emotion: "afraid" },
  { line: "I'll come back later when I have more gold.", action: null, emotion: "neutral" },
  { line: "Your shop smells of cinnamon, I like it.", action: null, emotion: "happy" },
];

/**
 * The set split in two before any prompt or grammar change was tried: the lines at even indexes of the list are
 * for tuning, those at odd indexes held out (every group, each action and none, is split about evenly). Changes
 * are chosen by their effect on the tuning half only; the held-out half reports whether they generalise.
 *   tuning:   give_item 3, set_price 3, call_guard 3, open_door 2, none 11
 *   held out: give_item 3, set_price 3, call_guard 2, open_door 3, none 11
 */
export type LabelHalf = "tuning" | "heldout";
export const halfOf = (index: number): LabelHalf => (index % 2 === 0 ? "tuning" : "heldout");

/**
 * A third set, held out from all tuning of the action gate (written and committed before anything was measured on
 * it): 12 lines calling for one action with its parameters, 12 calling for none. The none lines lean on the
 * catalogue's own words (items, doors, guards, prices, stealing) without asking for anything, since a line that
 * only mentions an action's subject is where a small model acts by mistake.
 */
export const thirdTurns: LabelledTurn[] = [
  { line: "Here's fifteen gold. One healing draught, please.", action: { name: "give_item", params: { item: "Healing draught" } }, emotion: "neutral" },
  { line: "You said the lantern was mine once I swept the floor. It's swept. May I take it?", action: { name: "give_item", params: { item: "Lantern" } }, emotion: "happy" },
  { line: "I'll buy the map of the tunnels at your price. Coins are on the counter, pass it here.", action: { name: "give_item", params: { item: "Map of the tunnels" } }, emotion: "neutral" },
  { line: "Twelve gold for the healing draught and not a coin more. Change the price and I'll buy two.", action: { name: "set_price", params: { item: "Healing draught", price: 12 } }, emotion: "neutral" },
  { line: "Mark the iron key down to 25 gold, it's rusty.", action: { name: "set_price", params: { item: "Iron key", price: 25 } }, emotion: "neutral" },
  { line: "Sell me the lantern for 60 gold instead of 80? That's my best offer.", action: { name: "set_price", params: { item: "Lantern", price: 60 } }, emotion: "happy" },
  { line: "Give me the contents of your strongbox or you'll regret it, old man.", action: { name: "call_guard", params: {} }, emotion: "afraid" },
  { line: "That boy just pocketed a lantern and is running for the gate!", action: { name: "call_guard", params: {} }, emotion: "angry" },
  { line: "I've got a crossbow pointed at you. Empty the till, slowly.", action: { name: "call_guard", params: {} }, emotion: "afraid" },
  { line: "Please open the front door, my arms are full of firewood for you.", action: { name: "open_door", params: { door: "front" } }, emotion: "neutral" },
  { line: "Can you open the cellar? I'll help you carry up the wine.", action: { name: "open_door", params: { door: "cellar" } }, emotion: "happy" },
  { line: "The delivery wagon is at the back. Open the back door for the porters.", action: { name: "open_door", params: { door: "back" } }, emotion: "neutral" },
  { line: "That's a fine lantern hanging over your counter.", action: null, emotion: "happy" },
  { line: "Is the cellar always this cold?", action: null, emotion: "neutral" },
  { line: "The guards at the north gate were rude to me this morning.", action: null, emotion: "angry" },
  { line: "What did the iron key cost you to make?", action: null, emotion: "neutral" },
  { line: "Thieves robbed the tanner last night. Be careful, Bram.", action: null, emotion: "afraid" },
  { line: "My mother used to sell healing draughts before she passed.", action: null, emotion: "sad" },
  { line: "Why do you keep the back door bolted?", action: null, emotion: "neutral" },
  { line: "Prices went up everywhere this winter, didn't they?", action: null, emotion: "neutral" },
  { line: "I found a map in my grandfather's chest, it looks like yours.", action: null, emotion: "happy" },
  { line: "Goodbye, Bram. See you at the festival.", action: null, emotion: "happy" },
  { line: "Were you ever a guard yourself?", action: null, emotion: "neutral" },
  { line: "My friend was hurt in the tunnels and I don't know if he'll live.", action: null, emotion: "sad" },
];
