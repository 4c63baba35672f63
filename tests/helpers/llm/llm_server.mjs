// llm_server.mjs - a small inference server on node-llama-cpp (llama.cpp's
// prebuilt CPU build), for the end-to-end test of memtrend on a real LLM
// runtime. It serves completions of a tiny random-weight model
// (tiny_gguf.py) and counts them on /metrics.
//
//   node llm_server.mjs --model M.gguf --port P --mode leak|reuse|pool
//                       [--pool N] [--ctx TOKENS]
//
// Modes, the three ways a server can hold sessions:
//   leak   every request gets a context of its own that is kept forever
//          (a session cache without eviction: grows per request);
//   reuse  one context, its history cleared before each request (flat);
//   pool   up to N contexts, reused round-robin once all exist (a capped
//          session cache: grows to N contexts, then holds).
// POST /complete (any body: the prompt) -> a few tokens of text.
// GET /metrics -> "requests_total N" (Prometheus text format).
// Prints "ready PORT" on stdout once the model is loaded and listening.
// One thread per context: the default (every core, spinning) made a 4-token
// completion of this tiny model take 1.4 s on a 2-core machine, 5 ms with one.
import http from "node:http";
import {getLlama, LlamaCompletion} from "node-llama-cpp";

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, v) =>
    a.startsWith("--") ? [...acc, [a.slice(2), v[i + 1]]] : acc, []));
const mode = args.mode || "reuse";
const poolSize = Number(args.pool || 8);
const ctxSize = Number(args.ctx || 512);

const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
const model = await llama.loadModel({modelPath: args.model});

let served = 0;
const kept = [];          // leak: every context ever made
const pool = [];          // pool: up to poolSize contexts
let shared = null;        // reuse: the one context

async function contextFor(n) {
    if (mode === "leak") {
        const c = await model.createContext({contextSize: ctxSize, threads: 1});
        kept.push(c);
        return c;
    }
    if (mode === "pool") {
        if (pool.length < poolSize) {
            pool.push(await model.createContext({contextSize: ctxSize, threads: 1}));
            return pool[pool.length - 1];
        }
        return pool[n % poolSize];
    }
    if (!shared)
        shared = await model.createContext({contextSize: ctxSize, threads: 1});
    return shared;
}

// One request at a time: the runtime's contexts are not shared between
// concurrent completions here, and the test's load is paced anyway.
let chain = Promise.resolve();
async function complete(prompt) {
    const n = served;
    const ctx = await contextFor(n);
    const seq = ctx.sequencesLeft > 0 ? ctx.getSequence() : null;
    const s = seq || ctx._memtrendSeq;
    if (seq)
        ctx._memtrendSeq = seq;
    await s.clearHistory();
    const completion = new LlamaCompletion({contextSequence: s});
    const text = await completion.generateCompletion(prompt || "hello",
                                                     {maxTokens: 4});
    completion.dispose({disposeSequence: false});
    served++;
    // A full collection after each request (node --expose-gc): what this
    // server keeps is then the runtime's contexts, not whatever V8's
    // collector has not yet got round to (a drift of MiBs a minute that
    // would blur "flat" in a test of half a minute).
    if (globalThis.gc)
        globalThis.gc();
    return text;
}

const server = http.createServer((req, res) => {
    if (req.method === "GET" && req.url === "/metrics") {
        res.writeHead(200, {"Content-Type": "text/plain; version=0.0.4"});
        res.end("# TYPE requests_total counter\nrequests_total " + served + "\n");
        return;
    }
    if (req.method === "POST" && req.url === "/complete") {
        let body = "";
        req.on("data", d => { body += d; });
        req.on("end", () => {
            chain = chain.then(() => complete(body)).then(text => {
                res.writeHead(200, {"Content-Type": "text/plain"});
                res.end(JSON.stringify(text) + "\n");
            }, err => {
                res.writeHead(500);
                res.end(String(err) + "\n");
            });
        });
        return;
    }
    res.writeHead(404);
    res.end();
});
server.listen(Number(args.port), "127.0.0.1", () => {
    console.log("ready " + server.address().port);
});
