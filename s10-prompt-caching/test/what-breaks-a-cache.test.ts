/**
 * What breaks a cache, each case a failing run beside the run that keeps it: the second run of a
 * session reads the whole prefix the first one wrote, unless something before its tail changed,
 * the prefix is too short to cache, or the entry outlived its lifetime.
 */
import { describe, expect, it } from "vitest";
import { CACHE_BREAKERS, type CacheBreaker, secondRun } from "./cache-breakers.ts";

const byName = (name: string) => CACHE_BREAKERS.find((breaker) => breaker.name === name) as CacheBreaker;

describe("what breaks a cache", () => {
  it("nothing changed: the second run reads all the first one sent, and writes only its new prompt", async () => {
    const kept = await secondRun(byName("nothing (the case kept)"));
    expect(kept.read).toBeGreaterThan(2000);
    expect(kept.written).toBeLessThan(50);
  });

  it.each([
    "a timestamp in the system prompt",
    "the tools in another order",
    "an old tool result cleared (s08)",
    "a compaction (s08)",
    "six minutes between the runs",
  ])("%s: the second run reads nothing and writes its whole prefix again", async (name) => {
    const broken = await secondRun(byName(name));
    expect(broken.read).toBe(0);
    expect(broken.written).toBeGreaterThan(1024);
  });

  it("a prefix under the minimum: nothing is written, so nothing is read", async () => {
    const short = await secondRun(byName("a prefix under the minimum"));
    expect(short).toMatchObject({ read: 0, written: 0 });
    expect(short.input).toBeLessThan(1024);
  });

  it("six minutes with --cache-ttl 1h: the entry is still there", async () => {
    const [kept, hour] = await Promise.all([
      secondRun(byName("nothing (the case kept)")),
      secondRun(byName("six minutes, with --cache-ttl 1h")),
    ]);
    expect(hour.read).toBe(kept.read);
  });
});
