// The faster linkedom getters (tagname.ts) answer what linkedom's own do.
import { describe, expect, test } from "bun:test";
import { DOMParser } from "linkedom";
import "./tagname.ts";
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

  test("className is the class attribute's words, each once; setting it still works", () => {
    const doc = parseDocument('<html><body><div class="  a b  a "></div><p></p></body></html>', "https://x.test/");
    const div = doc.querySelector("div")!;
    expect(div.className).toBe("a b");
    expect(doc.querySelector("p")!.className).toBe("");
    div.className = "page";
    expect(div.className).toBe("page");
    expect(div.getAttribute("class")).toBe("page");
  });
});
