import { expect, test } from "bun:test";
import { DEFAULT_PRICES } from "../../src/config/config.ts";
import { creditsToMicro, interactionCostMicro, microToCredits, scanCostMicro } from "../../src/credits/prices.ts";

test("micro ↔ credits", () => {
  expect(microToCredits(1_500_000)).toBe(1.5);
  expect(microToCredits(1)).toBe(0.000001);
  expect(microToCredits(1_000_003)).toBe(1.000003);
  expect(microToCredits(0)).toBe(0);
  expect(creditsToMicro(1.5)).toBe(1_500_000);
  expect(creditsToMicro(0.1 + 0.2)).toBe(300_000);
  expect(creditsToMicro(0.0000004)).toBe(0);
  for (const m of [0, 1, 999_999, 1_000_003, 123_456_789_012]) expect(creditsToMicro(microToCredits(m))).toBe(m);
});

test("costs at the configured prices", () => {
  const prices = { ...DEFAULT_PRICES, promptToken: 2, completionToken: 5, scanByte: 3 };
  expect(interactionCostMicro(prices, 100, 20)).toBe(300);
  expect(interactionCostMicro(DEFAULT_PRICES, 1000, 200)).toBe(1000 * DEFAULT_PRICES.promptToken + 200 * DEFAULT_PRICES.completionToken);
  expect(interactionCostMicro(prices, 0, 0)).toBe(0);
  expect(interactionCostMicro(prices, -5, 2.2)).toBe(15); // negatives count as 0, fractions round up
  expect(scanCostMicro(prices, 1024)).toBe(3072);
  expect(Number.isInteger(scanCostMicro(prices, 10.5))).toBe(true);
});
