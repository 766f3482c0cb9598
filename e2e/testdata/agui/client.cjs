// The AG-UI client library's HttpAgent (@ag-ui/client) driving the
// program, for e2e/agui_test.go: node client.cjs <base URL> <state file>
// <phase>. Each phase runs a part of a conversation and prints what it saw
// as one JSON line; the thread (its id, messages, state, pending
// interrupts and the session cookie) is kept in the state file between
// phases, so that the server can be killed and restarted in between.
"use strict";
const fs = require("fs");
const { HttpAgent } = require("@ag-ui/client");

const [base, stateFile, phase] = process.argv.slice(2);

// The session is a cookie, as the page's: kept here as a browser keeps it.
function cookieFetch(saved) {
  const jar = { cookie: saved.cookie || "" };
  const f = async (url, init) => {
    const headers = { ...(init.headers || {}) };
    if (jar.cookie) headers.Cookie = jar.cookie;
    const res = await fetch(url, { ...init, headers });
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(";")[0];
      if (pair.startsWith("sp_session=")) jar.cookie = pair;
    }
    return res;
  };
  return { jar, fetch: f };
}

function load() {
  return fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, "utf8")) : {};
}

function agentFor(saved) {
  const cf = cookieFetch(saved);
  const agent = new HttpAgent({
    url: base + "/agui",
    fetch: cf.fetch,
    threadId: saved.threadId || "a-thread-of-the-client",
    initialMessages: saved.messages || [],
    initialState: saved.state || {},
  });
  agent.pendingInterrupts = saved.interrupts || [];
  return { agent, jar: cf.jar };
}

function save(agent, jar) {
  fs.writeFileSync(stateFile, JSON.stringify({
    cookie: jar.cookie, threadId: agent.threadId, messages: agent.messages,
    state: agent.state, interrupts: agent.pendingInterrupts,
  }));
}

// run runs the agent once and reports the events it got, the outcome, the
// text streamed and the tool calls with their results.
async function run(agent, params) {
  const seen = { events: [], text: "", deltas: 0, tools: [], results: {}, states: 0, patches: [] };
  const sub = {
    onEvent({ event }) { seen.events.push(event.type); },
    onRunStartedEvent({ event }) { agent.threadId = event.threadId; },
    onTextMessageContentEvent({ event }) {
      seen.text += event.delta; seen.deltas++;
      process.stderr.write("TEXT " + JSON.stringify(seen.text) + "\n"); // for a test that paces the model
    },
    onToolCallStartEvent({ event }) { seen.tools.push(event.toolCallName); },
    onToolCallResultEvent({ event }) { seen.results[event.toolCallId] = event.content; },
    onStateSnapshotEvent() { seen.states++; },
    onStateDeltaEvent({ event }) { seen.patches.push(event.delta); },
    onRunFinishedEvent(e) { seen.outcome = e.outcome; seen.interrupts = e.interrupts; seen.result = e.result; },
    onRunErrorEvent({ event }) { seen.error = event.message; },
  };
  try {
    await agent.runAgent(params, sub);
  } catch (e) {
    seen.thrown = String(e && e.message || e);
  }
  seen.state = agent.state;
  return seen;
}

async function main() {
  const saved = load();
  const { agent, jar } = agentFor(saved);
  const out = {};
  const user = (text) => agent.addMessage({ id: "u" + Date.now() + Math.random().toString(36).slice(2, 8), role: "user", content: text });
  switch (phase) {
  case "story": // one message, its reply streamed
    user("Tell me a story");
    out.story = await run(agent, {});
    break;
  case "book": // a flight: searched (a tool call), then the picker waits
    user("Book me a flight to Tokyo next Friday");
    out.book = await run(agent, {});
    break;
  case "resume": { // after the restart: a refused pick, the pick, the approval, the list
    const picker = agent.pendingInterrupts[0];
    out.bad = await run(agent, { resume: [{ interruptId: picker.id, status: "resolved", payload: { flight: "no-such-flight", seat: "1A" } }] });
    const offered = picker.metadata.input.flights[0];
    out.pick = await run(agent, { resume: [{ interruptId: picker.id, status: "resolved", payload: { flight: offered.id, seat: offered.seats[0] } }] });
    const approval = agent.pendingInterrupts[0];
    out.approve = await run(agent, { resume: [{ interruptId: approval.id, status: "resolved", payload: { choice: "once" } }] });
    user("List my bookings");
    out.list = await run(agent, {});
    break;
  }
  case "edit": { // the first message changed in the client: a new branch
    const first = agent.messages.find((m) => m.role === "user");
    agent.setMessages([{ ...first, id: "edited", content: "Book me a flight to Osaka next Friday instead" }]);
    out.edit = await run(agent, {});
    break;
  }
  default:
    throw new Error("unknown phase " + phase);
  }
  save(agent, jar);
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((e) => { console.error(e); process.exit(1); });
