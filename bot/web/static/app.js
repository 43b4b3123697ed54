// The live board: a page inside Discord (an Activity) that draws a Tholos game and lets its
// players compose turns by clicking. It has no rules of its own: the server sends, with each
// position, every step of every legal turn; the page offers the options of the current step and
// sends the chosen path. Who the member is and where the page is open, only Discord tells the
// server (the page passes on an authorization code and the Activity's instance id).
//
// Nothing optional may stop it: storage that throws (a sandboxed frame), a Discord client that
// never says it is ready (a timeout, and a message), a server that asks it to wait (429: it
// waits as told, a few times).
import { DiscordSDK, DiscordSDKMock } from "./vendor/embedded-app-sdk/index.mjs";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = { w: 0, b: 1, g: 2 };
const COLUMN_KINDS = new Set([
  "location", "remove", "extra-location", "move-source", "move-target", "quarry-target",
]);
const QUARRY_KINDS = new Set(["take-colour", "draw"]);
const OWN_WORKSHOP_KINDS = new Set(["stone", "extra-stone"]);
const RECONNECT_FIRST = 500, RECONNECT_LAST = 8000;
const FULL_FIRST = 5000, FULL_LAST = 60000;  // the server was full: try again, slowly
const READY_TIMEOUT_MS = 10000;  // Discord's client says it is ready within this, or never
const SESSION_TRIES = 4, LONGEST_WAIT_S = 30;  // a 429 is honoured this often, this long
const COMFORTABLE_PX = 11;  // the image's board is drawn when its smallest text is this large
const CLOSE = { session: 4001, tooMany: 4029, full: 4503 };
const STARTING = {  // in case the server cannot even say them in the member's language
  not_ready: "Discord did not start the live board in time: close it and open it again.",
  offline: "The live board's server did not answer: close it and open it again.",
  retrying: "Many live boards are starting at once — trying again in {seconds} s…",
  failed: "The live board could not start: open it again from Discord.",
};

const state = {
  session: null, user: null, words: {}, starting: STARTING, palette: null, sdk: null,
  frame: null, geometry: null, steps: new Map(), path: "", sent: false, socket: null,
  retry: RECONNECT_FIRST, tick: null, listed: false,
  analysis: null,  // the analysis board: the game's line, where it is, a side line tried
  course: null,  // the lobby's course: the lesson to go on with
  participants: [],  // who is in the Activity's instance, as Discord's client tells the page
  presence: null,  // the rich presence set last (null: Discord did not let the page set it)
  seatsAsked: null,  // the timer of the next ask about open seats
  poolTick: null, poolAsk: null,  // the wait's clock; the ask for the AI's offer once it is due
};
const $ = (id) => document.getElementById(id);
const REVIEW_POLL_MS = 3000;  // how often the analysis board asks how far its review is
const LABELS = {  // the page's buttons and their words
  back: "back", "start-over": "start_over", confirm: "confirm", puzzle: "puzzle",
  "next-puzzle": "next_puzzle", reveal: "reveal", "all-games": "all_games", best: "best_turn",
  copy: "copy_position", "main-line": "back_to_game", "next-lesson": "next_lesson",
  "try-again": "try_again", "try-best": "try_it", leave: "leave", "analyse-position": "analyse",
  "pool-title": "pool_title", "pool-about": "pool_about", "pool-join": "pool_join",
  "pool-not-now": "pool_not_now", "pool-leave": "pool_leave",
};

// -- storage that may not be there (sandboxed or partitioned frames throw) -----------------

const store = {
  get(key) {
    try { return window.sessionStorage.getItem(key); } catch { return null; }
  },
  set(key, value) {
    try { window.sessionStorage.setItem(key, value); } catch { /* the page goes on without */ }
  },
};

function sleep(ms) {
  return new Promise((done) => setTimeout(done, ms));
}

function within(promise, ms, message) {
  let timer;
  const late = new Promise((_, fail) => { timer = setTimeout(() => fail(new Error(message)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// -- who and where: Discord, or the SDK's mock outside Discord -------------------------------

async function config() {
  try {
    const answer = await fetch("/api/config");
    if (!answer.ok) throw new Error(answer.statusText);
    return await answer.json();
  } catch {
    throw new Error(STARTING.offline);
  }
}

async function authorize() {
  const params = new URLSearchParams(location.search);
  const found = await config();
  state.starting = { ...STARTING, ...found.words };
  if (found.language) document.documentElement.lang = found.language;
  let sdk;
  if (params.has("frame_id")) {
    try {
      sdk = new DiscordSDK(found.client_id);
    } catch {  // Discord's query string is not all there
      throw new Error(state.starting.failed);
    }
    await within(sdk.ready(), READY_TIMEOUT_MS, state.starting.not_ready);
  } else {  // development and tests: what Discord would give, from the query string
    sdk = new DiscordSDKMock(found.client_id, params.get("guild_id"), params.get("channel_id"), null);
    sdk.instanceId = params.get("instance_id");
    sdk._updateCommandMocks({ authorize: async () => ({ code: params.get("code") }) });
    window.discordMock = sdk;  // development and tests play Discord's part (emitEvent)
  }
  state.sdk = sdk;
  const { code } = await sdk.commands.authorize({
    client_id: found.client_id, response_type: "code", state: "", prompt: "none",
    scope: ["identify", "rpc.activities.write"],
  });
  const body = await exchange(code, sdk.instanceId);
  state.session = body.session;
  state.user = body.user;
  store.set("session", body.session);
  startSocial(body.access_token);  // not waited for: the board needs none of it
}

async function exchange(code, instanceId) {
  // The code for a session; a 429 (too many pages starting, here or at Discord) is waited
  // out as its Retry-After says, a few times.
  for (let attempt = 1; ; attempt += 1) {
    let answer;
    try {
      answer = await fetch("/api/session", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ code, instance_id: instanceId }),
      });
    } catch {
      throw new Error(state.starting.offline);
    }
    let body = {};
    try { body = await answer.json(); } catch { /* no JSON: the status says it */ }
    if (answer.ok) return body;
    const seconds = Number(answer.headers.get("Retry-After")) || 1;
    if (answer.status !== 429 || attempt >= SESSION_TRIES || seconds > LONGEST_WAIT_S) {
      throw new Error(body.message || state.starting.failed);
    }
    notice(state.starting.retrying.replace("{seconds}", String(Math.ceil(seconds))));
    document.body.dataset.connection = "waiting";
    await sleep(seconds * 1000);
    hideNotice();
  }
}

// -- Discord around the page: who is here, the invite, the member's rich presence ---------
// Each is optional: a client that refuses one (an old client, a scope declined, the invite
// dialog in a DM) leaves the page as it is. What the page shows of it is the member's own
// Discord client's word, shown as text (names escaped); the server trusts none of it.

async function startSocial(accessToken) {
  const sdk = state.sdk;
  try {
    await sdk.commands.authenticate({ access_token: accessToken });
    state.presence = "";  // allowed from now on: the board shown sets it
    showPresence();
  } catch { /* no rich presence */ }
  try {
    await sdk.subscribe("ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE", (event) => showParticipants(event.participants));
    showParticipants((await sdk.commands.getInstanceConnectedParticipants()).participants);
  } catch { /* no one shown */ }
}

const MOST_SHOWN = 25;  // participants named at most
const SEATS_SETTLE_MS = 300;  // the seats are asked about once who is here stops changing

function showParticipants(participants) {
  if (Array.isArray(participants)) {
    state.participants = participants;
    askSeats();
  }
  const names = state.participants.slice(0, MOST_SHOWN)
    .map((who) => String(who.nickname || who.global_name || who.username || "")).filter(Boolean);
  const box = $("participants");
  box.hidden = !names.length || !state.words.participants;
  box.dataset.count = String(state.participants.length);
  box.textContent = fill(state.words.participants || "", { names: names.join(", ") });
}

function askSeats() {
  // The lobby asks which of the others here wait in this channel with an open challenge (the
  // server looks only in the page's channel, as Discord placed it): once a burst of changes
  // of who is here has settled (the server takes a few messages a second from a page).
  clearTimeout(state.seatsAsked);
  state.seatsAsked = setTimeout(() => {
    if (document.body.dataset.view !== "lobby") return;
    const players = state.participants.map((who) => String(who.id)).filter((id) => id !== state.user);
    if (players.length) talk({ type: "seats", players: players.slice(0, 10) });
  }, SEATS_SETTLE_MS);
}

function showSeats(frame) {
  if (document.body.dataset.view !== "lobby") return;
  $("seats-title").textContent = state.words.seats;
  $("seats-title").hidden = !frame.seats.length;
  $("seats").replaceChildren(...frame.seats.map((seat) => {
    const item = document.createElement("li"), button = document.createElement("button");
    button.type = "button";
    button.className = "primary";
    button.dataset.challenge = seat.challenge;
    button.textContent = seat.label;
    button.addEventListener("click", () => {
      button.disabled = true;
      talk({ type: "take_seat", challenge: seat.challenge });
    });
    item.appendChild(button);
    return item;
  }));
}

function fill(text, values) {
  // ``text`` with its {named} blanks filled (a function: a name's "$&" stays as it is).
  return text.replace(/\{(\w+)\}/g, (blank, key) => (key in values ? String(values[key]) : blank));
}

async function invite() {
  // Discord's invite dialog where there is one to open (a server's channel, with the right
  // to invite); else — a DM, a group DM — a link to the Activity, shared by Discord's dialog.
  const sdk = state.sdk;
  if (sdk.guildId) {
    try {
      await sdk.commands.openInviteDialog();
      return;
    } catch { /* no right to invite here: a link */ }
  }
  try {
    await sdk.commands.shareLink({ message: state.words.invite_message.slice(0, 1000) });
  } catch { /* the member closed it, or the client has no such dialog */ }
}

$("invite").addEventListener("click", invite);

function showPresence() {
  // The member's profile says what they are doing: the game shown (its turn, the opponent,
  // its pace), or only that they are in Tholos. Set again only when it changes.
  if (state.presence === null || !state.words.presence_playing) return;
  const frame = state.frame;
  const game = frame && !frame.puzzle && !frame.lesson && !frame.analysis;
  const activity = game ? gameActivity(frame) : { type: 0 };
  const key = JSON.stringify(activity);
  if (key === state.presence) return;
  state.presence = key;
  state.sdk.commands.setActivity({ activity }).catch(() => { /* rate limited: the next */ });
}

function gameActivity(frame) {
  const [white, black] = frame.sides, me = frame.sides.find((side) => side.user === state.user);
  const turn = frame.ply + (frame.phase === "over" ? 0 : 1);
  const details = me
    ? fill(state.words.presence_playing, { turn, name: (me === white ? black : white).name })
    : fill(state.words.presence_watching, { white: white.name, black: black.name });
  const activity = { type: 0, details: details.slice(0, 128) };
  if (frame.pace) activity.state = frame.pace.slice(0, 128);
  return activity;
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
    if (event.code === CLOSE.session || event.code === CLOSE.tooMany) {
      // only Discord can open it again; the error frame before said why
      if (event.code === CLOSE.session) notice(state.words.ended || state.starting.failed);
      document.body.dataset.connection = "ended";
      showControls();
      return;
    }
    const full = event.code === CLOSE.full;
    document.body.dataset.connection = full ? "full" : "lost";
    if (!full) $("status").textContent = state.words.reconnecting || "…";
    showControls();  // nothing can be sent until the connection is back
    const wait = full ? Math.max(state.retry, FULL_FIRST) : state.retry;
    setTimeout(connect, wait);
    state.retry = Math.min(wait * 2, full ? FULL_LAST : RECONNECT_LAST);
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
      hideNotice();
      for (const [id, key] of Object.entries(LABELS)) $(id).textContent = state.words[key];
      $("pasted").placeholder = state.words.paste_position;
      $("first").title = state.words.first;
      $("previous").title = state.words.previous;
      $("next").title = state.words.next;
      $("last").title = state.words.last;
      $("invite").textContent = state.words.invite;
      $("invite").hidden = false;
      showParticipants();
      showPresence();
      break;
    case "opened":  // a game of this channel's threads: the way back to their list
      state.listed = frame.listed;
      break;
    case "board":
      if (frame.analysis) analysisBoard(frame);
      else if (!state.analysis || frame.lesson || frame.puzzle) showBoard(frame);
      break;
    case "analysis":
      startAnalysis(frame);
      break;
    case "review":
      if (state.analysis && state.analysis.game === frame.game) showReview(frame.review);
      break;
    case "best":
      showBest(frame);
      break;
    case "course":  // past the course's last lesson
      state.sent = false;
      notice(frame.text);
      break;
    case "lobby":
      state.listed = false;
      showLobby(frame);
      break;
    case "seats":
      showSeats(frame);
      break;
    case "pool":
      if (document.body.dataset.view === "lobby") showPoolFrame(frame);
      break;
    case "error":
      state.sent = false;
      notice(frame.message);
      showControls();
      if (state.analysis && state.frame?.analysis) showAnalysisPanel();
      break;
    case "verdict":  // a puzzle or a lesson answered: right or wrong, explained; then on
      state.sent = false;
      state.path = "";
      state.steps = new Map();
      state.frame = { ...state.frame, steps: [] };
      document.body.dataset.verdict = frame.correct ? "right" : "wrong";
      notice(frame.text);
      showControls();
      if (frame.lesson) lessonVerdict(frame);
      else $("next-puzzle").hidden = false;
      break;
  }
}

// -- the board (a game's, or a puzzle's: the member to move, the answer their turn) --------

function showBoard(frame) {
  const newPosition = !state.frame || state.frame.game !== frame.game
    || state.frame.version !== frame.version || state.frame.position !== frame.position;
  state.frame = frame;
  state.steps = new Map((frame.steps || []).map((step) => [step.path, step]));
  if (newPosition) { state.path = ""; state.sent = false; hideNotice(); }
  $("lobby").hidden = true;
  showWait(null);
  for (const id of ["next-puzzle", "next-lesson", "try-again", "try-best"]) $(id).hidden = true;
  $("all-games").hidden = !state.listed || !!frame.puzzle || !!frame.lesson || !!frame.analysis;
  $("leave").hidden = !frame.lesson && !frame.analysis && !frame.puzzle;
  $("invite").hidden = !!(frame.lesson || frame.analysis || frame.puzzle);
  $("analysis").hidden = !frame.analysis;
  $("lesson-text").hidden = !frame.lesson;
  $("lesson-text").textContent = frame.lesson_text || "";
  if (!frame.analysis) stopAnalysis();
  delete document.body.dataset.verdict;
  document.body.dataset.view = "board";
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
  showControls();  // first: the controls take their room, the board the rest
  fitBoard(true);
  showPresence();
}

// -- which board, how large: the frame's room decides -----------------------------------------

function room() {
  const board = $("board");
  return [board.clientWidth, board.clientHeight];
}

function smallestText(geometry, [width, height]) {
  const [x0, y0, x1, y1] = geometry.view;
  const scale = Math.min(width / (x1 - x0), height / (y1 - y0));
  return scale * Math.min(...Object.values(geometry.type));
}

function chooseGeometry(geometries, space) {
  // The image's board when its smallest text is comfortable; else the board that draws its
  // smallest text largest.
  if (smallestText(geometries.wide, space) >= COMFORTABLE_PX) return geometries.wide;
  return Object.values(geometries).reduce((best, candidate) =>
    smallestText(candidate, space) > smallestText(best, space) ? candidate : best);
}

function fitBoard(redraw) {
  const frame = state.frame;
  if (!frame || $("board").hidden) return;
  const space = room();
  if (space[0] <= 0 || space[1] <= 0) return;
  const chosen = chooseGeometry(frame.geometries, space);
  if (redraw || !state.geometry || chosen.name !== state.geometry.name) {
    state.geometry = chosen;
    document.body.dataset.geometry = chosen.name;
    draw(frame, chosen);
    placeTargets();
  }
  const [x0, y0, x1, y1] = chosen.view;
  const scale = Math.min(space[0] / (x1 - x0), space[1] / (y1 - y0));
  const width = (x1 - x0) * scale, height = (y1 - y0) * scale;
  const upright = innerHeight > innerWidth;  // right under the status; else centred
  Object.assign($("board-inner").style, {
    width: `${width}px`, height: `${height}px`,
    left: `${(space[0] - width) / 2}px`, top: `${upright ? 0 : (space[1] - height) / 2}px`,
  });
}

new ResizeObserver(() => fitBoard(false)).observe($("board"));

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

// -- drawing ---------------------------------------------------------------------------------

function draw(frame, g) {
  const svg = $("drawing"), p = state.palette;
  const [vx0, vy0, vx1, vy1] = g.view;
  svg.setAttribute("viewBox", `${vx0} ${vy0} ${vx1 - vx0} ${vy1 - vy0}`);
  svg.replaceChildren();
  const add = (parent, name, attributes, text) => {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    if (text !== undefined) element.textContent = text;
    parent.appendChild(element);
    return element;
  };
  add(svg, "rect", { x: vx0, y: vy0, width: vx1 - vx0, height: vy1 - vy0, fill: p.background });
  if (g.platform) {
    const [[cx, cy], [rx, ry]] = g.platform;
    add(svg, "ellipse", { cx, cy: cy + 14, rx: rx + 6, ry: ry + 8, fill: "#78705e" });
    add(svg, "ellipse", { cx, cy, rx, ry, fill: p.floor, stroke: p.floor_line, "stroke-width": 3 });
    add(svg, "ellipse", { cx, cy, rx: rx * 0.55, ry: ry * 0.55, fill: "none", stroke: p.floor_line, "stroke-width": 2 });
  }
  for (const [x0, y0, x1, y1] of g.floors) {
    add(svg, "rect", { x: x0, y: y0 + 6, width: x1 - x0, height: y1 - y0, rx: 14, fill: "#78705e" });
    add(svg, "rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 14, fill: p.floor, stroke: p.floor_line, "stroke-width": 2 });
  }
  const highlighted = new Set((frame.marks?.stones || []).map(([l, i]) => `${l}:${i}`));
  frame.columns.forEach((column, index) => drawSite(add, svg, g, g.sites[index], column, index, highlighted, frame.marks));
  if (g.status) drawStatus(add, svg, g, frame);
  frame.sides.forEach((side, index) => drawCard(add, svg, g, g.cards[index], side, frame));
  drawQuarry(add, svg, g, frame.quarry);
}

function fit(text, width) {
  // Keep a text within ``width`` (user units): cut it short with an ellipsis, then squeeze
  // its glyphs a little; its font size stays (the smallest text must stay readable).
  if (!width || text.getComputedTextLength() <= width) return;
  const whole = text.textContent;
  let kept = whole.length;
  while (kept > 1 && text.getComputedTextLength() > width / 0.85) {
    kept -= 1;
    text.textContent = `${whole.slice(0, kept).trimEnd()}…`;
  }
  if (text.getComputedTextLength() > width) {
    text.setAttribute("textLength", width);
    text.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  if (kept < whole.length) {  // the whole text, for a pointer resting on it
    const title = document.createElementNS(SVG, "title");
    title.textContent = whole;
    text.appendChild(title);
  }
}

function drawStatus(add, svg, g, frame) {
  // The headline and the last turn in words: on the temple's floor (the image's board), or
  // in a band over the columns (the tall board, whose page shows the headline already).
  const p = state.palette, type = g.type, [sx0, sy0, sx1, sy1] = g.status;
  const [strong, soft] = g.headline ? [p.ink, p.ink_soft] : [p.text, p.text_soft];
  const lines = frame.turn_lines.map((line) => [line, type.line, soft, "normal"]);
  if (g.headline || !lines.length) lines.unshift([frame.headline, type.headline, strong, "bold"]);
  let y = sy0 + (g.headline ? 12 : 2);
  for (const [text, size, fill, weight] of lines) {
    y += size;
    if (y > sy1 + 2) break;
    const line = add(svg, "text", { x: (sx0 + sx1) / 2, y, fill, "font-size": size,
      "text-anchor": "middle", "font-weight": weight, class: "headline" }, text);
    fit(line, sx1 - sx0);
    y += g.headline ? 8 : 5;
  }
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

function centred(box, size) {
  // The baseline that centres a line of ``size`` in ``box`` (its capitals, roughly).
  return (box[1] + box[3]) / 2 + size * 0.35;
}

function drawSite(add, svg, g, site, column, index, highlighted, marks) {
  const p = state.palette, type = g.type, group = add(svg, "g", { "data-column": column.letter });
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
  fit(add(group, "text", { x: (q0 + q2) / 2, y: q1 + 2 + type.location * 0.95, fill: p.ink, "font-size": type.location,
    "text-anchor": "middle", "font-family": "Georgia, DejaVu Serif, serif", "font-weight": "bold" }, column.location), q2 - q0 - 6);
  fit(add(group, "text", { x: (q0 + q2) / 2, y: q3 - type.bonus * 0.55 - 1, fill: p.ink, "font-size": type.bonus,
    "text-anchor": "middle" }, column.bonus), q2 - q0 - 4);
  if (column.ornament) {
    const [t0, t1, t2, t3] = site.tag;
    add(group, "rect", { x: t0, y: t1, width: t2 - t0, height: t3 - t1, rx: 8, fill: p.terracotta, stroke: p.terracotta_edge, "stroke-width": 2 });
    fit(add(group, "text", { x: (t0 + t2) / 2, y: centred(site.tag, type.tag), fill: p.cream, "font-size": type.tag,
      "text-anchor": "middle", "font-weight": "bold" }, column.ornament.tag), t2 - t0 - 8);
  }
  if (column.badge === undefined || column.badge === null) return;
  const [b0, b1, b2, b3] = site.badge;
  const look = column.winner ? p.stones[COLOURS[column.winner[0]]] : null;
  const edge = column.effect ? p.gold : look ? look.outline : p.tie_edge;
  add(group, "rect", { x: b0, y: b1, width: b2 - b0, height: b3 - b1, rx: (b3 - b1) / 2,
    fill: look ? look.side : p.tie, stroke: edge, "stroke-width": column.effect ? 3 : 2 });
  fit(add(group, "text", { x: (b0 + b2) / 2, y: centred(site.badge, type.badge), fill: look ? look.outline : p.ink,
    "font-size": type.badge, "text-anchor": "middle", "font-weight": "bold" }, column.badge), b2 - b0 - 6);
  if (column.effect) {
    const [e0, e1, e2, e3] = site.effect;
    add(group, "rect", { x: e0, y: e1, width: e2 - e0, height: e3 - e1, rx: 6, fill: p.terracotta, stroke: p.gold, "stroke-width": 1 });
    fit(add(group, "text", { x: (e0 + e2) / 2, y: centred(site.effect, type.effect), fill: p.cream, "font-size": type.effect,
      "text-anchor": "middle", "font-weight": "bold" }, column.effect), e2 - e0 - 4);
  }
}

function drawCard(add, svg, g, card, side, frame) {
  const p = state.palette, type = g.type, [x0, y0, x1, y1] = card.box;
  const toMove = frame.to_move === side.colour;
  add(svg, "rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 12, fill: p.panel,
    stroke: toMove ? p.highlight : p.panel_edge, "stroke-width": toMove ? 4 : 2, "data-side": side.colour });
  const face = Math.round((card.stone[2] - card.stone[0]) * 0.36);
  drawStone(add, svg, card.stone, COLOURS[side.colour[0]], face, false);
  const [nx, ny, nw] = card.name, [rx, ry, rw] = card.role, [px, py] = card.points, [lx, ly, lw] = card.label;
  fit(add(svg, "text", { x: nx, y: ny, fill: p.text, "font-size": type.name, "font-weight": "bold" }, side.name), nw);
  fit(add(svg, "text", { x: rx, y: ry, fill: toMove ? p.highlight : p.text_soft, "font-size": type.role }, side.colour_name), rw);
  add(svg, "text", { x: px, y: py, fill: p.text, "font-size": type.points, "text-anchor": "end",
    "font-family": "Georgia, DejaVu Serif, serif", "font-weight": "bold" }, String(side.points).replace("-", "−"));
  fit(add(svg, "text", { x: lx, y: ly, fill: p.text_soft, "font-size": type.label, "font-weight": "bold" }, state.words.workshop), lw);
  const stones = side.workshop.flatMap((count, colour) => Array(count).fill(colour));
  const arrived = frame.marks && frame.marks.player === side.colour ? [...frame.marks.workshop] : [0, 0, 0];
  card.workshop.forEach((box, slot) => {
    if (slot < stones.length) {
      const colour = stones[slot], ring = arrived[colour] > 0;
      if (ring) arrived[colour] -= 1;
      drawStone(add, svg, box, colour, g.small[1], ring);
      return;
    }
    const [s0, , s2, s3] = box;
    add(svg, "ellipse", { cx: (s0 + s2) / 2, cy: s3 - g.small[1] / 2, rx: (s2 - s0) / 2, ry: g.small[1] / 2,
      fill: "none", stroke: p.panel_edge, "stroke-width": 1.5 });
  });
}

function drawQuarry(add, svg, g, quarry) {
  const p = state.palette, type = g.type, q = g.quarry, [x0, y0, x1, y1] = q.box;
  add(svg, "rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 12, fill: p.panel, stroke: p.panel_edge, "stroke-width": 2 });
  const [lx, ly, lw] = q.label;
  fit(add(svg, "text", { x: lx, y: ly, fill: p.text_soft, "font-size": type.label, "text-anchor": "middle", "font-weight": "bold" }, state.words.quarry), lw);
  q.piles.forEach((box, colour) => {
    if (quarry[colour] > 0) drawStone(add, svg, box, colour, g.small[1], false);
    const [cx, cy] = q.counts[colour];
    add(svg, "text", { x: cx, y: cy, fill: p.text, "font-size": type.count,
      "text-anchor": "middle", "font-weight": "bold" }, String(quarry[colour]));
  });
}

// -- composing a turn ------------------------------------------------------------------------

function showControls() {
  const frame = state.frame;
  const options = $("options");
  options.replaceChildren();
  const playing = frame && frame.steps && frame.steps.length > 0;
  $("controls").hidden = !playing;
  if (playing) document.body.dataset.controls = "shown";
  else delete document.body.dataset.controls;
  placeTargets();
  if (!playing) return;
  const step = state.steps.get(state.path);
  const ready = !step;  // the path completes a turn
  const waiting = state.sent || !connected();
  $("prompt").textContent = ready ? state.words.ready : step.prompt;
  $("back").disabled = waiting || state.path === "";
  $("start-over").disabled = waiting || state.path === "";
  $("back").hidden = $("start-over").hidden = state.path === "";
  $("confirm").disabled = waiting || !ready;
  $("confirm").hidden = !ready;
  $("reveal").hidden = !frame.puzzle;  // a puzzle's answer, shown without answering: a miss
  $("reveal").disabled = waiting;
  if (ready) return;
  for (const option of step.options) {
    if (onBoard(frame, step.kind, option)) continue;  // a place: over the board, or not at all
    options.appendChild(choiceButton(option, waiting));
  }
}

function choiceButton(option, waiting) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = option.label;
  button.disabled = waiting || option.enabled === false;
  if (option.why_not) button.title = option.why_not;
  button.dataset.path = option.path;
  button.addEventListener("click", () => choose(option.path));
  return button;
}

function placeTargets() {
  // The choices that are places on the board, as buttons over them (on the board drawn now).
  const frame = state.frame, g = state.geometry, targets = $("targets");
  targets.replaceChildren();
  const step = frame && frame.steps && frame.steps.length ? state.steps.get(state.path) : null;
  if (!step || !g) return;
  const waiting = state.sent || !connected();
  const [vx0, vy0, vx1, vy1] = g.view, w = vx1 - vx0, h = vy1 - vy0;
  for (const option of step.options) {
    const box = targetBox(frame, g, step.kind, option);
    if (!box) continue;
    const button = choiceButton(option, waiting);
    const [x0, y0, x1, y1] = box;
    Object.assign(button.style, {
      left: `${(100 * (x0 - vx0)) / w}%`, top: `${(100 * (y0 - vy0)) / h}%`,
      width: `${(100 * (x1 - x0)) / w}%`, height: `${(100 * (y1 - y0)) / h}%`,
    });
    targets.appendChild(button);
  }
}

function connected() {
  return state.socket !== null && state.socket.readyState === WebSocket.OPEN;
}

function onBoard(frame, kind, option) {
  // Whether the option is a place on the board (a column, a pile, a workshop's stone): it is
  // chosen there when it can be, and not offered when it cannot (the board shows why).
  return targetBox(frame, frame.geometries.wide, kind, { ...option, enabled: true }) !== null;
}

function targetBox(frame, g, kind, option) {
  const token = option.path.slice(-1);
  if (option.enabled === false) return null;  // only what can be chosen is on the board
  if (COLUMN_KINDS.has(kind) && /[A-G]/.test(token)) {
    const site = g.sites[token.charCodeAt(0) - 65];
    return union(site.column, site.plaque);
  }
  if (QUARRY_KINDS.has(kind) && token in COLOURS) return g.quarry.targets[COLOURS[token]];
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
  let message = { type: "turn", game: frame.game, version: frame.version, path: state.path };
  if (frame.puzzle) message = { type: "puzzle_answer", attempt: frame.puzzle, path: state.path };
  if (frame.lesson) message = { type: "lesson_answer", lesson: frame.lesson, path: state.path };
  if (frame.analysis) message = analysisTurn(state.path);
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
$("all-games").addEventListener("click", () => talk({ type: "lobby" }));
$("leave").addEventListener("click", () => { stopAnalysis(); talk({ type: "home" }); });
$("course").addEventListener("click", () => talk({ type: "lesson", lesson: state.course }));
$("paste").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("pasted").value.trim();
  if (text) talk({ type: "analyse", position: text });
});

function talk(message) {
  // Send ``message`` if the connection is open (else the reconnect shows the board anew).
  if (connected()) state.socket.send(JSON.stringify(message));
}

// -- no game here ----------------------------------------------------------------------------

function showLobby(frame) {
  stopAnalysis();
  state.frame = null;
  state.geometry = null;
  document.body.dataset.view = "lobby";
  delete document.body.dataset.controls;
  $("board").hidden = true;
  $("controls").hidden = true;
  for (const id of ["all-games", "leave", "analysis", "lesson-text", "next-lesson", "try-again",
    "try-best", "next-puzzle"]) $(id).hidden = true;
  hideNotice();
  $("lobby").hidden = false;
  $("targets").replaceChildren();
  $("clocks").hidden = true;
  clearInterval(state.tick);
  for (const id of ["last-turn", "projection", "scoring", "small-print"]) $(id).textContent = "";
  $("title").textContent = "Tholos";
  $("status").textContent = frame.here.length ? state.words.games_here : state.words.no_game;
  $("here-title").textContent = state.words.games_here;
  $("here-title").hidden = !frame.here.length;
  $("here").replaceChildren(...frame.here.map((game) => {
    const item = document.createElement("li"), button = document.createElement("button");
    button.type = "button";
    button.dataset.game = game.id;
    button.textContent = `${game.white} – ${game.black}${game.your_turn ? " ★" : ""}`;
    const what = document.createElement("span");
    what.className = "what";
    what.textContent = game.yours ? state.words.your_game : state.words.watch;
    button.appendChild(what);
    button.addEventListener("click", () => {
      if (connected()) state.socket.send(JSON.stringify({ type: "open", game: game.id }));
    });
    item.appendChild(button);
    return item;
  }));
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
  showSeats({ seats: [] });
  askSeats();
  showPool(frame.pool);
  $("levels-title").textContent = state.words.play_the_ai;
  $("levels-title").hidden = frame.levels.length === 0;
  $("ai-elsewhere").textContent = state.words.ai_elsewhere;
  $("ai-elsewhere").hidden = frame.levels.length > 0;
  $("invite").hidden = false;
  showPresence();
  state.course = frame.course.lesson;
  $("course").textContent = frame.course.label;
  $("course").dataset.done = `${frame.course.done}/${frame.course.count}`;
  $("finished-title").textContent = state.words.analyse_title;
  $("finished-title").hidden = !frame.finished.length;
  $("finished").replaceChildren(...frame.finished.map((game) => {
    const item = document.createElement("li"), button = document.createElement("button");
    button.type = "button";
    button.dataset.analyse = game.id;
    button.textContent = `${game.white} – ${game.black}`;
    const what = document.createElement("span");
    what.className = "what";
    what.textContent = game.result || "";
    button.appendChild(what);
    button.addEventListener("click", () => talk({ type: "analyse", game: game.id }));
    item.appendChild(button);
    return item;
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

// -- quick pairing: the pool's paces, its consent (asked once), the wait ---------------------

function showPool(pool) {
  // The lobby's quick pairing where the pool is open to the member (else none): a button a
  // pace, where their game would be, and their wait if they wait.
  $("pool").hidden = !pool;
  showConsent(null);
  showWait(pool ? pool.state : null);
  if (!pool) return;
  $("pool-where").textContent = pool.where || "";
  $("pool-where").hidden = !pool.where;
  $("paces").replaceChildren(...pool.paces.map(({ pace, label }) => {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.pace = pace;
    button.textContent = label;
    button.setAttribute("aria-pressed", String(pace === document.body.dataset.pool));
    button.addEventListener("click", () => talk({ type: "quick_pairing", pace }));
    return button;
  }));
}

function showPoolFrame(frame) {
  showConsent(frame.consent);
  showWait(frame.state);
}

function showConsent(consent) {
  $("pool-consent").hidden = !consent;
  if (!consent) return;
  $("pool-consent-text").textContent = consent.text;
  $("pool-join").dataset.pace = consent.pace;
}

function showWait(wait) {
  // The member's wait: the pace, how many wait, the time waited (counted on from the frame's
  // receipt); the AI's offer asked for once it is due, shown once made.
  clearInterval(state.poolTick);
  clearTimeout(state.poolAsk);
  $("pool-waiting").hidden = !wait;
  document.body.dataset.pool = wait ? wait.pace : "";
  for (const button of $("paces").children) {
    button.setAttribute("aria-pressed", String(!!wait && button.dataset.pace === wait.pace));
  }
  if (!wait) return;
  $("pool-looking").textContent = wait.text;
  $("pool-count").textContent = wait.count;
  const received = performance.now();
  const tick = () => {
    const waited = wait.waited + (performance.now() - received) / 1000;
    $("pool-waited").textContent = fill(state.words.pool_waited, { time: clockText(waited) });
  };
  tick();
  state.poolTick = setInterval(tick, 1000);
  if (wait.offer_in !== null) {
    state.poolAsk = setTimeout(() => talk({ type: "pool_state" }), wait.offer_in * 1000 + 100);
  }
  for (const id of ["pool-nobody", "pool-ai-rated", "pool-ai"]) $(id).hidden = !wait.ai;
  if (wait.ai) {
    $("pool-nobody").textContent = wait.ai.text;
    $("pool-ai-rated").textContent = wait.ai.rated;
    $("pool-ai").textContent = wait.ai.unrated;
  }
}

$("pool-join").addEventListener("click", () => {
  talk({ type: "pool_consent", pace: $("pool-join").dataset.pace });
});
$("pool-not-now").addEventListener("click", () => showConsent(null));
$("pool-leave").addEventListener("click", () => talk({ type: "pool_leave" }));
$("pool-ai-rated").addEventListener("click", () => talk({ type: "pool_ai", rated: true }));
$("pool-ai").addEventListener("click", () => talk({ type: "pool_ai", rated: false }));

// -- lessons: the verdict, then the next lesson or another try ------------------------------

function lessonVerdict(frame) {
  state.lesson = { again: frame.lesson, next: frame.next };
  $("next-lesson").hidden = !(frame.correct && frame.next);
  $("try-again").hidden = frame.correct;
  $("leave").hidden = false;
}

$("next-lesson").addEventListener("click", () => talk({ type: "lesson", lesson: state.lesson.next }));
$("try-again").addEventListener("click", () => talk({ type: "lesson", lesson: state.lesson.again }));

// -- the analysis board: the game's line, a side line, the review, the engine's best turn ----

const MOST_CACHED = 400;  // boards kept for stepping back and forth without asking again
const STEP_GAP_MS = 300;  // boards asked for at most this often (the server takes 4 messages a
                          // second from a page; the review's progress is asked for besides)

function startAnalysis(frame) {
  stopAnalysis();
  state.analysis = {
    game: frame.game, title: frame.title, names: frame.names, positions: frame.positions,
    turns: frame.turns, review: null, index: frame.positions.length - 1, side: [],
    frames: new Map(), poll: null, best: null, asking: null, asked: -Infinity,
  };
  showReview(frame.review);
  goTo();
}

function stopAnalysis() {
  if (state.analysis) {
    clearTimeout(state.analysis.poll);
    clearTimeout(state.analysis.asking);
  }
  state.analysis = null;
}

function shownPosition() {
  const a = state.analysis;
  return a.side.length ? a.side[a.side.length - 1].position : a.positions[a.index];
}

function goTo() {
  // Show the position the line is at: from the boards kept, or asked of the server.
  const a = state.analysis, position = shownPosition();
  a.best = null;
  $("try-best").hidden = true;
  const kept = a.frames.get(position);
  if (kept) {
    analysisBoard(kept);
    return;
  }
  document.body.dataset.loading = position;
  askBoard(a);
  showAnalysisPanel();
}

function askBoard(a) {
  // Ask for the board of the position the line is at — at most one ask a STEP_GAP_MS: the
  // server takes a few messages a second from a page, and a held arrow key steps faster; the
  // positions stepped over meanwhile are never asked for.
  if (a.asking) return;
  const wait = Math.max(0, a.asked + STEP_GAP_MS - performance.now());
  a.asking = setTimeout(() => {
    a.asking = null;
    a.asked = performance.now();
    if (state.analysis === a && !a.frames.has(shownPosition())) {
      talk({ type: "analysis_board", position: shownPosition(), game: a.game });
    }
  }, wait);
}

function analysisBoard(frame) {
  const a = state.analysis;
  if (!a) return;
  if (frame.tried) {  // a turn tried from the position shown: on the game's line, or a side line
    state.sent = false;
    if (frame.tried.from !== shownPosition()) return;
    if (!a.side.length && a.positions[a.index + 1] === frame.position) a.index += 1;
    else a.side.push({ position: frame.position, ...frame.tried });
  }
  if (a.frames.size >= MOST_CACHED) a.frames.delete(a.frames.keys().next().value);
  a.frames.set(frame.position, { ...frame, tried: undefined });
  if (frame.position !== shownPosition()) return;  // the answer to an earlier step
  delete document.body.dataset.loading;
  showBoard(frame);
  showAnalysisPanel();
}

function analysisTurn(path) {
  const a = state.analysis;
  return { type: "analysis_turn", position: shownPosition(), path, game: a.game };
}

function showAnalysisPanel() {
  const a = state.analysis, inSide = a.side.length > 0, last = a.positions.length - 1;
  $("title").textContent = a.title;
  $("first").disabled = $("previous").disabled = !inSide && a.index === 0;
  $("next").disabled = inSide || a.index === last;
  $("last").disabled = !inSide && a.index === last;
  $("main-line").hidden = !inSide;
  $("best").disabled = !state.frame || state.frame.position !== shownPosition()
    || state.frame.phase === "over";
  document.body.dataset.analysis = a.game ?? "position";  // the game analysed, or a pasted one
  document.body.dataset.index = a.index;
  document.body.dataset.side = a.side.map((turn) => turn.notation).join(" ");
  $("at-turn").textContent = inSide ? sideLineText(a) : turnAtText(a);
  for (const item of $("moves").children) {
    item.classList.toggle("current", !inSide && Number(item.dataset.index) === a.index);
  }
  $("moves").querySelector(".current")?.scrollIntoView({ block: "nearest" });
  showEvaluation(a, inSide);
}

function turnAtText(a) {
  if (a.index === 0) return a.turns.length ? state.words.game_start : state.words.pasted;
  const turn = a.turns[a.index - 1];
  const lines = [`${a.index}. ${turn.text} (${turn.notation})`];
  const mistake = mistakeAt(a, a.index - 1);
  if (mistake) lines.push(state.words.mistake.replace("{turn}", `${mistake.best_text} (${mistake.best})`));
  return lines.join("\n");
}

function sideLineText(a) {
  const tried = a.side.map((turn) => turn.notation).join(" · ");
  return `${state.words.side_line}: ${tried}\n${a.side[a.side.length - 1].text}`;
}

function mistakeAt(a, index) {
  return (a.review?.mistakes || []).find((mistake) => mistake.index === index);
}

function showEvaluation(a, inSide) {
  // White's expected result in the position shown, as the review stored it.
  const box = $("evaluation"), chart = a.review?.chart;
  const known = !inSide && Array.isArray(chart);
  box.hidden = a.review === null;
  box.dataset.known = known ? "yes" : "no";
  if (!known) {
    delete box.dataset.evaluation;
    box.removeAttribute("aria-valuenow");
    $("evaluation-text").textContent = inSide ? state.words.not_evaluated : "…";
    return;
  }
  const value = chart[a.index], white = Math.round(value * 100);
  box.dataset.evaluation = String(value);
  box.setAttribute("aria-valuenow", String(white));
  $("evaluation-white").style.width = `${value * 100}%`;
  $("evaluation-text").textContent =
    `${state.words.expected}: ${a.names[0]} ${white} % · ${a.names[1]} ${100 - white} %`;
}

function showReview(review) {
  // The review of the game analysed: how far it is (asked again a little later), or done.
  const a = state.analysis;
  a.review = review;
  clearTimeout(a.poll);
  const status = $("review-status");
  status.hidden = !review || review.status === "done";
  if (review && (review.status === "queued" || review.status === "running")) {
    status.textContent = state.words.reviewing
      .replace("{done}", String(review.done)).replace("{total}", String(review.total));
    a.poll = setTimeout(() => talk({ type: "analysis_review", game: a.game }), REVIEW_POLL_MS);
  } else if (review && review.status === "failed") {
    status.textContent = state.words.review_failed;
  }
  $("moves").replaceChildren(...a.turns.map((turn, index) => {
    const item = document.createElement("li");
    item.dataset.index = index + 1;
    item.textContent = turn.notation;
    item.title = turn.text;
    if (mistakeAt(a, index)) item.classList.add("mistake");
    item.addEventListener("click", () => { a.side = []; a.index = index + 1; goTo(); });
    return item;
  }));
  if (state.frame?.analysis) showAnalysisPanel();
}

function showBest(frame) {
  const a = state.analysis;
  if (!a || frame.position !== shownPosition()) return;
  a.best = frame;
  notice(frame.text);
  $("try-best").hidden = false;
}

const STEPS = {
  first: (a) => { a.side = []; a.index = 0; },
  previous: (a) => { if (a.side.length) a.side.pop(); else a.index -= 1; },
  next: (a) => { a.index += 1; },
  last: (a) => { a.side = []; a.index = a.positions.length - 1; },
  "main-line": (a) => { a.side = []; },
};
for (const [id, step] of Object.entries(STEPS)) {
  $(id).addEventListener("click", () => {
    if (!state.analysis) return;
    step(state.analysis);
    goTo();
  });
}
document.addEventListener("keydown", (event) => {
  const keys = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" };
  const id = keys[event.key];
  if (!state.analysis || !id || event.target.closest?.("input") || $(id).disabled) return;
  event.preventDefault();
  $(id).click();
});
$("best").addEventListener("click", () => {
  if (!state.analysis) return;
  $("best").disabled = true;
  talk({ type: "analysis_best", position: shownPosition() });
});
$("try-best").addEventListener("click", () => {
  const best = state.analysis?.best;
  if (!best || best.position !== shownPosition() || !connected()) return;
  state.sent = true;
  $("try-best").hidden = true;
  talk(analysisTurn(best.path));
});
$("copy").addEventListener("click", async () => {
  // The position shown, to the clipboard; where the frame may not write it, selected instead.
  const text = state.frame?.position || "";
  let copied = false;
  try {  // (a frame may wait for a permission it never gets)
    await within(navigator.clipboard.writeText(text), 1000, "no clipboard");
    copied = true;
  } catch { /* a frame without the clipboard: the small print is selected */ }
  if (!copied) {
    const range = document.createRange();
    range.selectNodeContents($("small-print"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
  }
  document.body.dataset.copied = copied ? text : getSelection().toString();
  $("copy").textContent = copied ? state.words.copied : state.words.selected;
  setTimeout(() => { $("copy").textContent = state.words.copy_position; }, 2000);
});

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
