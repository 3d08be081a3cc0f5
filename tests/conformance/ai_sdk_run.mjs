// The support agent on the Vercel AI SDK with its own telemetry, against the fake OpenAI server;
// writes the spans as an OTLP/JSON export body. Run by record.py (`python record.py ai-sdk`).
import { generateText, tool, stepCountIs } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { z } from "zod";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";

// as NodeSDK does: spans find their parent through the async context
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
import { writeFileSync } from "node:fs";

const [baseURL, out, api] = process.argv.slice(2);
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ "service.name": "support" }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const TASK = "Order R-7731 arrived broken. Please refund it in full.";
const openai = createOpenAI({ baseURL, apiKey: "test" });
const model = api === "responses" ? openai.responses("gpt-4o-mini") : openai.chat("gpt-4o-mini");
const result = await generateText({
  model,
  system: "You are a support agent. Look the order up before refunding it.",
  prompt: TASK,
  tools: {
    lookup_order: tool({
      description: "Look an order up by id; returns its amount and status as JSON.",
      inputSchema: z.object({ order_id: z.string() }),
      execute: async ({ order_id }) => JSON.stringify({ order_id, amount: 42.5, status: "delivered" }),
    }),
    refund: tool({
      description: "Refund `amount` on an order; returns the refund id as JSON.",
      inputSchema: z.object({ order_id: z.string(), amount: z.number() }),
      execute: async ({ order_id, amount }) => JSON.stringify({ refund_id: "RF-0091", order_id, amount }),
    }),
  },
  stopWhen: stepCountIs(5),
  experimental_telemetry: { isEnabled: true, functionId: "support", tracer: provider.getTracer("ai") },
});
console.log("answer:", result.text);
await provider.forceFlush();
const body = JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans());
writeFileSync(out, Buffer.from(body));
