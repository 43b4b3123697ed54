// The live board: a page inside Discord (an Activity) that draws a Tholos game and lets its
// players compose turns by clicking. It has no rules of its own: the server sends, with each
// position, every step of every legal turn; the page offers the options of the current step and
// sends the chosen path. Who the member is and where the page is open, only Discord tells the
// server (the page passes on an authorization code and the Activity's instance id).
import { DiscordSDK, DiscordSDKMock } from "/static/vendor/embedded-app-sdk/index.mjs";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = { w: 0, b: 1, g: 2 };
const COLUMN_KINDS = new Set([
  "location", "remove", "extra-location", "move-source", "move-target", "quarry-target",
]);
const QUARRY_KINDS = new Set(["take-colour", "draw"]);
const OWN_WORKSHOP_KINDS = new Set(["stone", "extra-stone"]);
const RECONNECT_FIRST = 500, RECONNECT_LAST = 8000;

const state = {
  session: null, user: null, words: {}, palette: null,
  frame: null, steps: new Map(), path: "", sent: false, socket: null, retry: RECONNECT_FIRST, tick: null,
};
const $ = (id) => document.getElementById(id);

// -- who and where: Discord, or the SDK's mock outside Discord -------------------------------

async function authorize() {
  const params = new URLSearchParams(location.search);
  const config = await (await fetch("/api/config")).json();
  let sdk;
  if (params.has("frame_id")) {
    sdk = new DiscordSDK(config.client_id);
    await sdk.ready();
  } else {  // development and tests: what Discord would give, from the query string
    sdk = new DiscordSDKMock(config.client_id, params.get("guild_id"), params.get("channel_id"), null);
    sdk.instanceId = params.get("instance_id");
    sdk._updateCommandMocks({ authorize: async () => ({ code: params.get("code") }) });
  }
  state.sdk = sdk;
  const { code } = await sdk.commands.authorize({
    client_id: config.client_id, response_type: "code", state: "", prompt: "none",
    scope: ["identify"],
  });
  const answer = await fetch("/api/session", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code, instance_id: sdk.instanceId }),
  });
  if (!answer.ok) throw new Error((await answer.json()).message || answer.statusText);
  const body = await answer.json();
  state.session = body.session;
  state.user = body.user;
  sessionStorage.setItem("session", body.session);
}

// -- the connection: hello, frames, reconnects ---------------------------------------------

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/live`);
  state.socket = socket;
  socket.addEventListener("open", () => {
    socket.send(JSON.stringify({ type: "hello", session: state.session }));
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => {
    if (state.socket !== socket) return;
    if (event.code === 4001) {  // the session is not valid: only Discord can open it again
      notice(state.words.ended || "This live board has ended: open it again from Discord.");
      document.body.dataset.connection = "ended";
      return;
    }
    document.body.dataset.connection = "lost";
    $("status").textContent = state.words.reconnecting || "…";
    showControls();  // nothing can be sent until the connection is back
    setTimeout(connect, state.retry);
    state.retry = Math.min(state.retry * 2, RECONNECT_LAST);
  });
}

function receive(frame) {
  switch (frame.type) {
    case "welcome":
      state.sent = false;  // a turn sent before a reconnect: the board that follows tells
      state.words = frame.words;
      state.palette = frame.palette;
      state.retry = RECONNECT_FIRST;
      document.documentElement.lang = frame.language;
      document.body.dataset.connection = "open";
      $("back").textContent = state.words.back;
      $("start-over").textContent = state.words.start_over;
      $("confirm").textContent = state.words.confirm;
      $("puzzle").textContent = state.words.puzzle;
      $("next-puzzle").textContent = state.words.next_puzzle;
      $("reveal").textContent = state.words.reveal;
      break;
    case "board":
      showBoard(frame);
      break;
    case "lobby":
      showLobby(frame);
      break;
    case "error":
      state.sent = false;
      notice(frame.message);
      showControls();
      break;
    case "verdict":  // a puzzle answered: right or wrong, explained; then another
      state.sent = false;
      state.steps = new Map();
      state.frame = { ...state.frame, steps: [] };
      document.body.dataset.verdict = frame.correct ? "right" : "wrong";
      notice(frame.text);
      showControls();
      $("next-puzzle").hidden = false;
      break;
  }
}

// -- the board (a game's, or a puzzle's: the member to move, the answer their turn) --------

function showBoard(frame) {
  const newPosition = !state.frame || state.frame.game !== frame.game
    || state.frame.version !== frame.version;
  state.frame = frame;
  state.steps = new Map((frame.steps || []).map((step) => [step.path, step]));
  if (newPosition) { state.path = ""; state.sent = false; hideNotice(); }
  $("lobby").hidden = true;
  $("next-puzzle").hidden = true;
  delete document.body.dataset.verdict;
  $("board").hidden = false;
  document.body.dataset.game = frame.game;
  document.body.dataset.version = frame.version;
  document.body.dataset.position = frame.position;
  document.body.dataset.phase = frame.phase;
  $("title").textContent = frame.title;
  $("status").textContent = statusLine(frame);
  $("last-turn").textContent = frame.last_turn ? `${frame.headings.last_turn}: ${frame.last_turn}` : "";
  $("projection").textContent = frame.projection ? `${frame.headings.projection}: ${frame.projection}` : "";
  $("scoring").textContent = frame.scoring || "";
  $("small-print").textContent = frame.small_print;
  showClocks(frame);
  draw(frame);
  showControls();
}

// -- live clocks: the running one counts down from the frame's receipt ----------------------

function showClocks(frame) {
  const box = $("clocks");
  const clocks = frame.clocks;
  clearInterval(state.tick);
  box.hidden = !clocks;
  if (!clocks) return;
  const received = performance.now();
  const render = () => {
    const shown = [];
    frame.sides.forEach((side, index) => {
      let left = clocks.left[index];
      if (left === null) return;  // the AI has no clock
      const running = clocks.running === side.colour && clocks.runs_out_in !== null;
      if (running) left = Math.max(0, clocks.runs_out_in - (performance.now() - received) / 1000);
      const clock = document.createElement("span");
      clock.className = running ? "clock running" : "clock";
      clock.dataset.colour = side.colour;
      clock.textContent = `${side.colour_name} ${clockText(left)}`;
      shown.push(clock);
    });
    box.replaceChildren(...shown);
  };
  render();
  if (clocks.running) state.tick = setInterval(render, 250);
}

function clockText(seconds) {
  const whole = Math.floor(seconds);
  const hours = Math.floor(whole / 3600), minutes = Math.floor((whole % 3600) / 60);
  const secs = String(whole % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${secs}` : `${minutes}:${secs}`;
}

function statusLine(frame) {
  if (frame.phase !== "over" && !isPlayer(frame)) return `${frame.headline} · ${state.words.watching}`;
  return frame.phase === "over" ? frame.status : frame.headline;
}

function isPlayer(frame) {
  return frame.sides.some((side) => side.user === state.user);
}

function draw(frame) {
  const svg = $("drawing");
  const g = frame.geometry, p = state.palette;
  svg.setAttribute("viewBox", `0 0 ${g.size[0]} ${g.size[1]}`);
  svg.replaceChildren();
  const add = (parent, name, attributes, text) => {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    if (text !== undefined) element.textContent = text;
    parent.appendChild(element);
    return element;
  };
  add(svg, "rect", { width: g.size[0], height: g.size[1], fill: p.background });
  const [[cx, cy], [rx, ry]] = g.platform;
  add(svg, "ellipse", { cx, cy: cy + 14, rx: rx + 6, ry: ry + 8, fill: "#78705e" });
  add(svg, "ellipse", { cx, cy, rx, ry, fill: p.floor, stroke: p.floor_line, "stroke-width": 3 });
  add(svg, "ellipse", { cx, cy, rx: rx * 0.55, ry: ry * 0.55, fill: "none", stroke: p.floor_line, "stroke-width": 2 });
  const highlighted = new Set((frame.marks?.stones || []).map(([l, i]) => `${l}:${i}`));
  frame.columns.forEach((column, index) => drawSite(add, svg, g, g.sites[index], column, index, highlighted, frame.marks));
  const [sx0, sy0, sx1] = g.status;
  let y = sy0 + 12;
  const lines = [[frame.headline, 26, p.ink, "bold"], ...frame.turn_lines.map((line) => [line, 17, p.ink_soft, "normal"])];
  for (const [text, size, fill, weight] of lines) {
    y += size;
    add(svg, "text", { x: (sx0 + sx1) / 2, y, fill, "font-size": size, "text-anchor": "middle", "font-weight": weight, class: "headline" }, text);
    y += 8;
  }
  frame.sides.forEach((side, index) => drawCard(add, svg, g, g.cards[index], side, frame));
  drawQuarry(add, svg, g, frame.quarry);
}

function drawStone(add, parent, box, colour, face, ring) {
  const p = state.palette, look = p.stones[colour];
  const [x0, y0, x1, y1] = box, half = face / 2, cx = (x0 + x1) / 2, rx = (x1 - x0) / 2;
  add(parent, "rect", { x: x0, y: y0 + half, width: x1 - x0, height: y1 - y0 - face, fill: look.side, stroke: look.outline, "stroke-width": 2 });
  add(parent, "ellipse", { cx, cy: y1 - half, rx, ry: half, fill: look.side, stroke: look.outline, "stroke-width": 2 });
  add(parent, "rect", { x: x0 + 1, y: y0 + half, width: x1 - x0 - 2, height: y1 - y0 - face, fill: look.side });
  add(parent, "ellipse", { cx, cy: y0 + half, rx, ry: half, fill: look.top, stroke: look.outline, "stroke-width": 2 });
  if (ring) {
    add(parent, "rect", { x: x0 - 5, y: y0 - 4, width: x1 - x0 + 10, height: y1 - y0 + 8, rx: 12,
      fill: "none", stroke: p.highlight, "stroke-width": 4, class: "last-turn" });
  }
}

function drawSite(add, svg, g, site, column, index, highlighted, marks) {
  const p = state.palette, group = add(svg, "g", { "data-column": column.letter });
  const [c0, c1, c2, c3] = site.column;
  add(group, "rect", { x: c0, y: c1, width: c2 - c0, height: c3 - c1, rx: 14, fill: "rgba(255,255,255,0.10)", stroke: p.shaft_edge, "stroke-width": 2 });
  site.stones.forEach((box, slot) => {
    if (slot < column.stones.length) return;
    const [x0, y0, x1, y1] = box;
    add(group, "ellipse", { cx: (x0 + x1) / 2, cy: y1 - g.stone[1] / 2, rx: (x1 - x0) / 2 - 4,
      ry: g.stone[1] / 2 - 3, fill: "none", stroke: p.shaft_edge, "stroke-width": 1.5, "stroke-dasharray": "4 4" });
  });
  [...column.stones].forEach((letter, slot) => {
    drawStone(add, group, site.stones[slot], COLOURS[letter], g.stone[1], highlighted.has(`${index}:${slot}`));
  });
  if (marks?.vacated && marks.vacated[0] === index) {
    const [x0, y0, x1, y1] = site.stones[marks.vacated[1]];
    add(group, "rect", { x: x0 - 4, y: y0 - 3, width: x1 - x0 + 8, height: y1 - y0 + 6, rx: 12,
      fill: "none", stroke: p.highlight, "stroke-width": 3, "stroke-dasharray": "7 5", class: "last-turn" });
  }
  const [q0, q1, q2, q3] = site.plaque;
  add(group, "rect", { x: q0, y: q1, width: q2 - q0, height: q3 - q1, rx: 6, fill: p.marble, stroke: p.ink_soft, "stroke-width": 2 });
  add(group, "text", { x: (q0 + q2) / 2, y: q1 + 26, fill: p.ink, "font-size": 24, "text-anchor": "middle",
    "font-family": "Georgia, DejaVu Serif, serif", "font-weight": "bold" }, column.location);
  add(group, "text", { x: (q0 + q2) / 2, y: q3 - 9, fill: p.ink, "font-size": 14, "text-anchor": "middle" }, column.bonus);
  if (column.ornament) {
    const [t0, t1, t2, t3] = site.tag;
    add(group, "rect", { x: t0, y: t1, width: t2 - t0, height: t3 - t1, rx: 8, fill: p.terracotta, stroke: p.terracotta_edge, "stroke-width": 2 });
    add(group, "text", { x: (t0 + t2) / 2, y: (t1 + t3) / 2 + 5, fill: p.cream, "font-size": 13,
      "text-anchor": "middle", "font-weight": "bold" }, column.ornament.tag);
  }
  if (column.badge === undefined || column.badge === null) return;
  const [b0, b1, b2, b3] = site.badge;
  const look = column.winner ? p.stones[COLOURS[column.winner[0]]] : null;
  const edge = column.effect ? p.gold : look ? look.outline : p.tie_edge;
  add(group, "rect", { x: b0, y: b1, width: b2 - b0, height: b3 - b1, rx: (b3 - b1) / 2,
    fill: look ? look.side : p.tie, stroke: edge, "stroke-width": column.effect ? 3 : 2 });
  add(group, "text", { x: (b0 + b2) / 2, y: (b1 + b3) / 2 + 6, fill: look ? look.outline : p.ink,
    "font-size": 18, "text-anchor": "middle", "font-weight": "bold" }, column.badge);
  if (column.effect) {
    const [e0, e1, e2, e3] = site.effect;
    add(group, "rect", { x: e0, y: e1, width: e2 - e0, height: e3 - e1, rx: 6, fill: p.terracotta, stroke: p.gold, "stroke-width": 1 });
    add(group, "text", { x: (e0 + e2) / 2, y: (e1 + e3) / 2 + 4, fill: p.cream, "font-size": 12,
      "text-anchor": "middle", "font-weight": "bold" }, column.effect);
  }
}

function drawCard(add, svg, g, card, side, frame) {
  const p = state.palette, [x0, y0, x1, y1] = card.box;
  const toMove = frame.to_move === side.colour;
  add(svg, "rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 12, fill: p.panel,
    stroke: toMove ? p.highlight : p.panel_edge, "stroke-width": toMove ? 4 : 2, "data-side": side.colour });
  drawStone(add, svg, card.stone, COLOURS[side.colour[0]], 20, false);
  add(svg, "text", { x: x0 + 90, y: y0 + 46, fill: p.text, "font-size": 28, "font-weight": "bold" }, side.name);
  add(svg, "text", { x: x0 + 90, y: y0 + 74, fill: toMove ? p.highlight : p.text_soft, "font-size": 17 }, side.colour_name);
  add(svg, "text", { x: x1 - 20, y: y0 + 72, fill: p.text, "font-size": 52, "text-anchor": "end",
    "font-family": "Georgia, DejaVu Serif, serif", "font-weight": "bold" }, String(side.points).replace("-", "−"));
  add(svg, "text", { x: x0 + 20, y: y1 - 26, fill: p.text_soft, "font-size": 14, "font-weight": "bold" }, state.words.workshop);
  const stones = side.workshop.flatMap((count, colour) => Array(count).fill(colour));
  const arrived = frame.marks && frame.marks.player === side.colour ? [...frame.marks.workshop] : [0, 0, 0];
  card.workshop.forEach((box, slot) => {
    if (slot < stones.length) {
      const colour = stones[slot], ring = arrived[colour] > 0;
      if (ring) arrived[colour] -= 1;
      drawStone(add, svg, box, colour, g.small[1], ring);
      return;
    }
    const [s0, s1, s2, s3] = box;
    add(svg, "ellipse", { cx: (s0 + s2) / 2, cy: s3 - g.small[1] / 2, rx: (s2 - s0) / 2, ry: g.small[1] / 2,
      fill: "none", stroke: p.panel_edge, "stroke-width": 1.5 });
  });
}

function drawQuarry(add, svg, g, quarry) {
  const p = state.palette, [x0, y0, x1, y1] = g.quarry.box;
  add(svg, "rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 12, fill: p.panel, stroke: p.panel_edge, "stroke-width": 2 });
  add(svg, "text", { x: (x0 + x1) / 2, y: y0 + 26, fill: p.text_soft, "font-size": 14, "text-anchor": "middle", "font-weight": "bold" }, state.words.quarry);
  g.quarry.piles.forEach((box, colour) => {
    if (quarry[colour] > 0) drawStone(add, svg, box, colour, g.small[1], false);
    add(svg, "text", { x: (box[0] + box[2]) / 2, y: box[3] + 36, fill: p.text, "font-size": 24,
      "text-anchor": "middle", "font-weight": "bold" }, String(quarry[colour]));
  });
}

// -- composing a turn ------------------------------------------------------------------------

function showControls() {
  const frame = state.frame;
  const targets = $("targets"), options = $("options");
  targets.replaceChildren();
  options.replaceChildren();
  const playing = frame && frame.steps && frame.steps.length > 0;
  $("controls").hidden = !playing;
  if (!playing) return;
  const step = state.steps.get(state.path);
  const ready = !step;  // the path completes a turn
  const waiting = state.sent || !connected();
  $("prompt").textContent = ready ? state.words.ready : step.prompt;
  $("back").disabled = waiting || state.path === "";
  $("start-over").disabled = waiting || state.path === "";
  $("confirm").disabled = waiting || !ready;
  $("confirm").hidden = !ready;
  $("reveal").hidden = !frame.puzzle;  // a puzzle's answer, shown without answering: a miss
  $("reveal").disabled = waiting;
  if (ready) return;
  for (const option of step.options) {
    const box = targetBox(frame, step.kind, option);
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = option.label;
    button.disabled = waiting || option.enabled === false;
    if (option.why_not) button.title = option.why_not;
    button.dataset.path = option.path;
    button.addEventListener("click", () => choose(option.path));
    if (box) {
      const [x0, y0, x1, y1] = box, [w, h] = frame.geometry.size;
      Object.assign(button.style, {
        left: `${(100 * x0) / w}%`, top: `${(100 * y0) / h}%`,
        width: `${(100 * (x1 - x0)) / w}%`, height: `${(100 * (y1 - y0)) / h}%`,
      });
      targets.appendChild(button);
    } else {
      options.appendChild(button);
    }
  }
}

function connected() {
  return state.socket !== null && state.socket.readyState === WebSocket.OPEN;
}

function targetBox(frame, kind, option) {
  const g = frame.geometry, token = option.path.slice(-1);
  if (option.enabled === false) return null;  // only what can be chosen is on the board
  if (COLUMN_KINDS.has(kind) && /[A-G]/.test(token)) {
    const site = g.sites[token.charCodeAt(0) - 65];
    return union(site.column, site.plaque);
  }
  if (QUARRY_KINDS.has(kind) && token in COLOURS) {
    const [x0, y0, x1, y1] = g.quarry.piles[COLOURS[token]];
    return [x0 - 6, y0 - 30, x1 + 6, y1 + 44];
  }
  const mover = frame.sides.findIndex((side) => side.colour === frame.to_move);
  const owner = OWN_WORKSHOP_KINDS.has(kind) ? mover : kind === "steal" ? 1 - mover : -1;
  if (owner >= 0 && token in COLOURS) {
    const side = frame.sides[owner], colour = COLOURS[token];
    const slot = side.workshop.slice(0, colour).reduce((a, b) => a + b, 0);
    const box = g.cards[owner].workshop[slot];
    return box ? [box[0] - 5, box[1] - 5, box[2] + 5, box[3] + 5] : null;
  }
  return null;
}

function union(a, b) {
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];
}

function choose(path) {
  state.path = path;
  hideNotice();
  showControls();
}

$("back").addEventListener("click", () => {
  let path = state.path.slice(0, -1);
  while (path && !state.steps.has(path)) path = path.slice(0, -1);
  choose(path);
});
$("start-over").addEventListener("click", () => choose(""));
$("confirm").addEventListener("click", () => {
  const frame = state.frame;
  if (!connected()) return;
  state.sent = true;
  showControls();
  const message = frame.puzzle
    ? { type: "puzzle_answer", attempt: frame.puzzle, path: state.path }
    : { type: "turn", game: frame.game, version: frame.version, path: state.path };
  state.socket.send(JSON.stringify(message));
});
$("reveal").addEventListener("click", () => {
  if (!connected() || !state.frame?.puzzle) return;
  state.sent = true;
  showControls();
  state.socket.send(JSON.stringify({ type: "puzzle_reveal", attempt: state.frame.puzzle }));
});
for (const id of ["puzzle", "next-puzzle"]) {  // a puzzle for the member, on this page
  $(id).addEventListener("click", () => {
    if (connected()) state.socket.send(JSON.stringify({ type: "puzzle" }));
  });
}

// -- no game here ----------------------------------------------------------------------------

function showLobby(frame) {
  state.frame = null;
  $("board").hidden = true;
  $("controls").hidden = true;
  $("lobby").hidden = false;
  $("status").textContent = state.words.no_game;
  $("lobby-title").textContent = frame.games.length ? state.words.your_games : state.words.no_games;
  $("levels").replaceChildren(...frame.levels.map(({ level, label }) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = label;
    button.addEventListener("click", () => {
      button.disabled = true;
      state.socket.send(JSON.stringify({ type: "play_ai", level }));
    });
    return button;
  }));
  $("games").replaceChildren(...frame.games.map((game) => {
    const item = document.createElement("li"), link = document.createElement("a");
    link.href = game.url;
    link.textContent = `${game.white} – ${game.black}${game.your_turn ? " ★" : ""}`;
    link.addEventListener("click", (event) => {
      if (state.sdk instanceof DiscordSDK) {
        event.preventDefault();
        state.sdk.commands.openExternalLink({ url: game.url });
      }
    });
    item.appendChild(link);
    return item;
  }));
}

function notice(text) {
  $("notice").textContent = text;
  $("notice").hidden = false;
}

function hideNotice() {
  $("notice").hidden = true;
}

authorize().then(connect).catch((error) => {
  notice(String(error.message || error));
  document.body.dataset.connection = "refused";
});
