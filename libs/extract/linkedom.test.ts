// linkedom as patched for speed (patches/linkedom@0.18.14.patch: tagName cached per name, className read from the
// attribute, classList and listener maps made on first use, selectors compiled once) answers as before.
import { describe, expect, test } from "bun:test";
import { DOMParser, parseHTML } from "linkedom";
import { parseDocument } from "./document.ts";

describe("linkedom getters", () => {
  test("tagName and nodeName are upper case in HTML documents, as written in XML ones", () => {
    const doc = parseDocument("<html><body><section><my-widget></my-widget></section></body></html>", "https://x.test/");
    const section = doc.querySelector("section")!;
    expect(section.tagName).toBe("SECTION");
    expect(section.nodeName).toBe("SECTION");
    expect(doc.querySelector("my-widget")!.tagName).toBe("MY-WIDGET");
    const xml = new DOMParser().parseFromString("<root><Item/></root>", "text/xml");
    expect(xml.documentElement.firstElementChild.tagName).toBe("Item");
  });

  test("className and classList are the class attribute's words, each once; setting them still works", () => {
    const doc = parseDocument('<html><body><div class="  a b  a "></div><p></p></body></html>', "https://x.test/");
    const div = doc.querySelector("div")!;
    expect(div.className).toBe("a b");
    expect(doc.querySelector("p")!.className).toBe("");
    expect([...(div as unknown as { classList: Set<string> }).classList]).toEqual(["a", "b"]);
    div.className = "page";
    expect(div.className).toBe("page");
    expect(div.getAttribute("class")).toBe("page");
    div.setAttribute("class", "x y");
    expect(div.className).toBe("x y");
    expect(doc.querySelectorAll(".x").length).toBe(1);
    expect(doc.getElementsByTagName("div").length).toBe(1);
  });

  test("event listeners still fire", () => {
    const doc = parseDocument("<html><body><p>x</p></body></html>", "https://x.test/");
    const p = doc.querySelector("p") as unknown as { addEventListener(t: string, f: () => void): void; removeEventListener(t: string, f: () => void): void; dispatchEvent(e: unknown): boolean };
    let fired = 0;
    const listener = () => fired++;
    p.removeEventListener("custom", listener); // before any was added: no error
    p.addEventListener("custom", listener);
    const { Event } = parseHTML("");
    p.dispatchEvent(new Event("custom"));
    expect(fired).toBe(1);
  });
});
