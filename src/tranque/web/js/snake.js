// The chain laid out as a domino line that bends (a "snake"): the first row left to right, the
// next right to left, and so on. At each bend one tile is turned upright at the row's end, its top
// half beside the row's last tile and its bottom half just above the first tile of the next row.
// Pure geometry, so it can be tested without a table.

/**
 * Where each tile of a chain goes.
 *
 * ``doubles``: for each tile in chain order, whether it is a double (drawn across the line, a
 * half wide and a tile long). ``width``: the room in pixels. ``u``: the side of a half in pixels
 * (a tile is u by 2u). ``gap``: between tiles along a row. ``rowGap``: between a bend's tile and
 * the row below it (rows are 2u high, to fit the doubles).
 *
 * Returns ``{ items, width, height, rows }``: for each tile ``{ x, y, w, h, row, dir }`` (its box,
 * in pixels from the top left of the laid-out block, centred in ``width``), where ``dir`` is 1 on a
 * left-to-right row, -1 on a right-to-left row, 0 for the upright tile at a bend.
 */
export function snakeLayout(doubles, width, u, { gap = 2, rowGap = 3 } = {}) {
  const n = doubles.length;
  const len = (k) => (doubles[k] ? u : 2 * u);
  const pitch = 2 * u + rowGap; // from one row's line to the next
  const items = [];
  let i = 0;
  let row = 0;
  let dir = 1;
  let start = 0; // where the row begins: its left edge going right, its right edge going left
  while (i < n) {
    const line = row * pitch;
    // A double cannot start a row under the bend's tile (it is 2u high): it goes beside it. The
    // rule below makes this rare (only a row of a single tile leads to it).
    if (row > 0 && doubles[i]) start += dir * (gap + u);
    const room = dir > 0 ? width - start : start;
    // As many tiles as fit, keeping room for the tile at the bend unless the chain ends here;
    // at least one, however narrow the room.
    let j = i;
    let used = 0;
    while (j < n) {
      const need = used + (j > i ? gap : 0) + len(j);
      const fits = need <= room - gap - u || (j === n - 1 && need <= room);
      if (!fits && j > i) break;
      used = need;
      j += 1;
    }
    // Tile j turns the bend and tile j + 1 starts the next row. If that one is a double, turn one
    // tile earlier, so the next row starts with a plain tile under the bend.
    if (j < n - 1 && doubles[j + 1] && j - i >= 2) j -= 1;
    let x = start;
    for (let k = i; k < j; k++) {
      const w = len(k);
      const h = doubles[k] ? 2 * u : u;
      items.push({ x: dir > 0 ? x : x - w, y: line - h / 2, w, h, row, dir });
      x += dir * (w + gap);
    }
    if (j >= n) break;
    // The bend: upright, its first half level with the row, its second half reaching down.
    const left = dir > 0 ? x : x - u;
    items.push({ x: left, y: line - u / 2, w: u, h: 2 * u, row, dir: 0 });
    start = dir > 0 ? left + u : left;
    dir = -dir;
    row += 1;
    i = j + 1;
  }
  if (!items.length) return { items, width: 0, height: 0, rows: 0 };
  const minX = Math.min(...items.map((b) => b.x));
  const maxX = Math.max(...items.map((b) => b.x + b.w));
  const minY = Math.min(...items.map((b) => b.y));
  const maxY = Math.max(...items.map((b) => b.y + b.h));
  const dx = Math.max(0, (width - (maxX - minX)) / 2) - minX;
  for (const b of items) {
    b.x = Math.round((b.x + dx) * 10) / 10;
    b.y = Math.round((b.y - minY) * 10) / 10;
  }
  return { items, width: maxX - minX, height: maxY - minY, rows: Math.max(...items.map((b) => b.row)) + 1 };
}
