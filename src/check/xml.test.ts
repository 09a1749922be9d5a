/**
 * A strict reader of the XML subset JUnit files use (a declaration, comments, elements,
 * attributes, text, the predefined entities and character references), for the tests: it throws
 * on anything not well-formed under XML 1.0, and returns the element tree, so a test can check
 * both that a CI system will parse the file and what it will read there.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text, entities resolved. */
  text: string;
}

const NAME = /^[A-Za-z_:][A-Za-z0-9_:.-]*/;
const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function legalChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

export function parseXml(doc: string): XmlElement {
  for (const ch of doc) {
    const cp = ch.codePointAt(0)!;
    // a lone surrogate iterates as itself
    if (!legalChar(cp) || (cp >= 0xd800 && cp <= 0xdfff))
      throw new Error(`character U+${cp.toString(16)} is not allowed in XML`);
  }
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at offset ${i}: ${JSON.stringify(doc.slice(i, i + 40))}`);
  };
  const skipSpace = () => {
    while (i < doc.length && /\s/.test(doc[i]!)) i++;
  };
  const resolve = (raw: string): string =>
    raw.replace(/&([^;]*);|&/g, (m, ref: string | undefined) => {
      if (ref === undefined) return fail("a bare &");
      if (PREDEFINED[ref] !== undefined) return PREDEFINED[ref];
      const num = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(ref);
      if (!num) return fail(`unknown entity &${ref};`);
      const cp = num[1] !== undefined ? parseInt(num[1], 16) : Number(num[2]);
      if (!legalChar(cp) || (cp >= 0xd800 && cp <= 0xdfff)) return fail(`character reference to U+${cp.toString(16)}`);
      return String.fromCodePoint(cp);
    });
  const misc = () => {
    for (;;) {
      skipSpace();
      if (doc.startsWith("<!--", i)) {
        const end = doc.indexOf("-->", i + 4);
        if (end < 0) fail("an unclosed comment");
        if (doc.slice(i + 4, end).includes("--")) fail("-- inside a comment");
        i = end + 3;
      } else if (doc.startsWith("<?", i) && !doc.startsWith("<?xml", i)) {
        const end = doc.indexOf("?>", i);
        if (end < 0) fail("an unclosed processing instruction");
        i = end + 2;
      } else return;
    }
  };
  const element = (): XmlElement => {
    if (doc[i] !== "<") fail("expected <");
    i++;
    const name = NAME.exec(doc.slice(i))?.[0] ?? fail("expected an element name");
    i += name.length;
    const attributes: Record<string, string> = {};
    for (;;) {
      const before = i;
      skipSpace();
      if (doc.startsWith("/>", i)) {
        i += 2;
        return { name, attributes, children: [], text: "" };
      }
      if (doc[i] === ">") {
        i++;
        break;
      }
      if (i === before) fail("expected a space before an attribute");
      const attr = NAME.exec(doc.slice(i))?.[0] ?? fail("expected an attribute name");
      i += attr.length;
      skipSpace();
      if (doc[i] !== "=") fail("expected =");
      i++;
      skipSpace();
      const quote = doc[i];
      if (quote !== '"' && quote !== "'") fail("an unquoted attribute value");
      const end = doc.indexOf(quote!, i + 1);
      if (end < 0) fail("an unclosed attribute value");
      const raw = doc.slice(i + 1, end);
      if (raw.includes("<")) fail("< in an attribute value");
      if (attr in attributes) fail(`attribute ${attr} twice`);
      attributes[attr] = resolve(raw);
      i = end + 1;
    }
    const children: XmlElement[] = [];
    let text = "";
    for (;;) {
      if (i >= doc.length) fail(`<${name}> is never closed`);
      if (doc.startsWith("</", i)) {
        i += 2;
        const close = NAME.exec(doc.slice(i))?.[0];
        if (close !== name) fail(`</${close}> closes <${name}>`);
        i += name.length;
        skipSpace();
        if (doc[i] !== ">") fail("expected >");
        i++;
        return { name, attributes, children, text };
      }
      if (doc.startsWith("<!--", i)) {
        misc();
        continue;
      }
      if (doc.startsWith("<![CDATA[", i)) {
        const end = doc.indexOf("]]>", i);
        if (end < 0) fail("an unclosed CDATA section");
        text += doc.slice(i + 9, end);
        i = end + 3;
        continue;
      }
      if (doc[i] === "<") {
        children.push(element());
        continue;
      }
      const next = doc.indexOf("<", i);
      const raw = doc.slice(i, next < 0 ? doc.length : next);
      if (raw.includes("]]>")) fail("]]> in text");
      text += resolve(raw);
      i += raw.length;
    }
  };

  if (doc.startsWith("\uFEFF")) i = 1;
  if (doc.startsWith("<?xml", i)) {
    const end = doc.indexOf("?>", i);
    if (end < 0) fail("an unclosed declaration");
    if (
      !/^<\?xml version="1\.[0-9]"( encoding="[A-Za-z][A-Za-z0-9._-]*")?( standalone="(yes|no)")?\s*$/.test(
        doc.slice(i, end),
      )
    )
      fail("a malformed declaration");
    i = end + 2;
  }
  misc();
  const root = element();
  misc();
  if (i !== doc.length) fail("content after the root element");
  return root;
}

describe("the test's XML reader", () => {
  test("reads a well-formed document, entities and references resolved", () => {
    const root = parseXml(
      `<?xml version="1.0" encoding="UTF-8"?>\n<!-- c -->\n<a x="1 &amp; &#10;2"><b>t &lt;&#x41;&gt;</b><c/></a>\n`,
    );
    assert.equal(root.name, "a");
    assert.equal(root.attributes.x, "1 & \n2");
    assert.equal(root.children[0]!.text, "t <A>");
    assert.equal(root.children[1]!.name, "c");
  });

  test("rejects what is not well-formed", () => {
    for (const bad of [
      "<a><b></a>",
      '<a x="1" x="2"/>',
      "<a>&foo;</a>",
      "<a>a & b</a>",
      "<a>\u0001</a>",
      "<a>&#1;</a>",
      "<a b=1/>",
      '<a b="<"/>',
      "<a/><b/>",
      "<a>",
      "<a>\ud800</a>",
      "<!-- a -- b --><a/>",
      "<a>]]></a>",
    ]) {
      assert.throws(() => parseXml(bad), Error, bad);
    }
  });
});
