// The support agent on Mastra (an `Agent` with two `createTool` tools) with Mastra's own
// observability exporting OTLP over HTTP/JSON (`@mastra/otel-exporter`, custom provider) to a
// local receiver, against the fake OpenAI server; writes the spans as one OTLP/JSON export body.
// Run by record.py (`python record.py mastra`); a third argument "failing" makes the first
// lookup raise (the fake model then looks the order up again).
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
import { Mastra } from "@mastra/core/mastra";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { Observability } from "@mastra/observability";
import { OtelExporter } from "@mastra/otel-exporter";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";

const [baseURL, out, mode] = process.argv.slice(2);

// the OTLP/HTTP receiver: every trace export body Mastra posts, kept as sent
const bodies = [];
const receiver = createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    if (request.url === "/v1/traces") bodies.push(JSON.parse(Buffer.concat(chunks).toString()));
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${receiver.address().port}`;

const TASK = "Order R-7731 arrived broken. Please refund it in full.";
let lookups = 0;
const lookupOrder = createTool({
  id: "lookup_order",
  description: "Look an order up by id; returns its amount and status as JSON.",
  inputSchema: z.object({ order_id: z.string() }),
  execute: async ({ order_id }) => {
    lookups += 1;
    if (mode === "failing" && lookups === 1) throw new Error(`order service unavailable for ${order_id}`);
    return JSON.stringify({ order_id, amount: 42.5, status: "delivered" });
  },
});
const refund = createTool({
  id: "refund",
  description: "Refund `amount` on an order; returns the refund id as JSON.",
  inputSchema: z.object({ order_id: z.string(), amount: z.number() }),
  execute: async ({ order_id, amount }) => JSON.stringify({ refund_id: "RF-0091", order_id, amount }),
});
const openai = createOpenAI({ baseURL, apiKey: "test" });
const agent = new Agent({
  id: "support",
  name: "support",
  instructions: "You are a support agent. Look the order up before refunding it.",
  model: openai.chat("gpt-4o-mini"),
  tools: { lookup_order: lookupOrder, refund },
});
const mastra = new Mastra({
  agents: { support: agent },
  observability: new Observability({
    configs: {
      otel: {
        serviceName: "support",
        exporters: [
          new OtelExporter({ provider: { custom: { endpoint, protocol: "http/json" } } }),
        ],
      },
    },
  }),
});
const result = await mastra.getAgent("support").generate(TASK, { maxSteps: 5 });
console.log("answer:", result.text);
await mastra.shutdown();
receiver.close();
// one body: the resource spans of every export, in the order they were sent
const body = { resourceSpans: bodies.flatMap((b) => b.resourceSpans) };
writeFileSync(out, JSON.stringify(body));
