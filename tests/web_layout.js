// The layout check of tests/test_web_browser.py, run in the page: a list of problems, empty
// when nothing is wider than the screen, cut off, or lying over a neighbour.
const W = document.documentElement.clientWidth;
const problems = [];
const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
  (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "");
const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
if (document.documentElement.scrollWidth > W + 1) {
  problems.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + W);
}
// a frame that scrolls (overflow auto) holds its content in reach: what is inside may be wider
const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
const inScroller = (el) => { for (let p = el.parentElement; p; p = p.parentElement) { if (scrolls(p)) return true; } return false; };
for (const el of document.querySelectorAll("body *")) {
  if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
  if (!shown(el) || inScroller(el)) continue;
  const r = el.getBoundingClientRect();
  if (r.left < -1 || r.right > W + 1) problems.push(name(el) + " lies outside the screen: " + r.left + ".." + r.right);
  const style = getComputedStyle(el);
  if (["hidden", "clip"].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1 && el.tagName.toLowerCase() !== "textarea") {
    problems.push(name(el) + " cuts off its content: " + el.scrollWidth + " > " + el.clientWidth);
  }
  // a word wider than its table cell runs over the next one (mail's board maps are tables)
  if (["td", "th"].includes(el.tagName.toLowerCase()) && el.scrollWidth > el.clientWidth + 1) {
    problems.push(name(el) + " runs over its cell: '" + el.textContent.trim().slice(0, 30) + "'");
  }
}
// siblings in the page's blocks must not lie over each other
const containers = document.querySelectorAll("main, .columns, .main-col, .side-col, section, form, ol.options li, " +
  "ul.stats, dl.held, table.players tr, table.list tr, header, .notice");
for (const box of containers) {
  const kids = Array.from(box.children).filter((k) => shown(k) && getComputedStyle(k).position !== "absolute" &&
                                                     k.type !== "hidden");
  for (let i = 0; i < kids.length; i++) {
    for (let j = i + 1; j < kids.length; j++) {
      const a = kids[i].getBoundingClientRect(), b = kids[j].getBoundingClientRect();
      const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (x > 1 && y > 1) problems.push(name(kids[i]) + " overlaps " + name(kids[j]));
    }
  }
}
// every word on the board stays inside its space
for (const g of document.querySelectorAll("svg.board g.space")) {
  const tile = g.querySelector("rect").getBBox();
  for (const t of g.querySelectorAll("text")) {
    const b = t.getBBox();
    if (b.x < tile.x - 1 || b.x + b.width > tile.x + tile.width + 1 || b.y < tile.y - 1 ||
        b.y + b.height > tile.y + tile.height + 1) {
      problems.push("board: '" + t.textContent + "' runs out of " + g.dataset.space);
    }
  }
}
// markers do not lie over the writing of their space
for (const g of document.querySelectorAll("svg.board g.space")) {
  const words = Array.from(g.querySelectorAll(":scope > text")).map((t) => t.getBBox());
  for (const m of g.querySelectorAll("g.marker circle")) {
    const c = m.getBBox();
    for (const w of words) {
      if (Math.min(c.x + c.width, w.x + w.width) - Math.max(c.x, w.x) > 1 &&
          Math.min(c.y + c.height, w.y + w.height) - Math.max(c.y, w.y) > 1) {
        problems.push("board: a marker lies over the writing of " + g.dataset.space);
      }
    }
  }
}
return problems;
