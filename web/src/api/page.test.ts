// The page token a sign-in link's redirect carries in the fragment (`/#tw-page=…`).
import { describe, expect, it } from "vitest";
import { splitFragment } from "./page";

describe("the sign-in fragment", () => {
  it("gives the token and leaves nothing", () => {
    expect(splitFragment("#tw-page=abc123")).toEqual({ token: "abc123", rest: "" });
  });
  it("keeps the rest of the fragment", () => {
    expect(splitFragment("#x=1&tw-page=abc&y=2")).toEqual({ token: "abc", rest: "#x=1&y=2" });
  });
  it("is nothing without the parameter", () => {
    expect(splitFragment("#section")).toBeNull();
    expect(splitFragment("")).toBeNull();
  });
  it("gives an empty token as empty, and still takes it out", () => {
    expect(splitFragment("#tw-page=")).toEqual({ token: "", rest: "" });
  });
});
