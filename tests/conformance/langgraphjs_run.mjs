// The support agent on LangGraph.js (`createReactAgent` with `ChatOpenAI` and two `tool`s)
// traced by OpenInference's LangChain instrumentation into an in-memory exporter, against the
// fake OpenAI server; writes the spans as one OTLP/JSON export body. Run by record.py
// (`python record.py langgraphjs`); a third argument "failing" makes the first lookup throw
// (the ToolNode hands the error to the model, which looks the order up again).
import { writeFileSync } from "node:fs";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { LangChainInstrumentation } from "@arizeai/openinference-instrumentation-langchain";
import * as CallbackManagerModule from "@langchain/core/callbacks/manager";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { z } from "zod";

const [baseURL, out, mode] = process.argv.slice(2);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ "service.name": "support" }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const instrumentation = new LangChainInstrumentation();
instrumentation.setTracerProvider(provider);
instrumentation.manuallyInstrument(CallbackManagerModule);

const TASK = "Order R-7731 arrived broken. Please refund it in full.";
let lookups = 0;
const lookupOrder = tool(
  async ({ order_id }) => {
    lookups += 1;
    if (mode === "failing" && lookups === 1) throw new Error(`order service unavailable for ${order_id}`);
    return JSON.stringify({ order_id, amount: 42.5, status: "delivered" });
  },
  {
    name: "lookup_order",
    description: "Look an order up by id; returns its amount and status as JSON.",
    schema: z.object({ order_id: z.string() }),
  },
);
const refund = tool(
  async ({ order_id, amount }) => JSON.stringify({ refund_id: "RF-0091", order_id, amount }),
  {
    name: "refund",
    description: "Refund `amount` on an order; returns the refund id as JSON.",
    schema: z.object({ order_id: z.string(), amount: z.number() }),
  },
);
const llm = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", configuration: { baseURL } });
const agent = createReactAgent({
  llm,
  tools: [lookupOrder, refund],
  prompt: "You are a support agent. Look the order up before refunding it.",
  name: "support",
});
const result = await agent.invoke({ messages: [{ role: "user", content: TASK }] });
console.log("answer:", result.messages.at(-1).content);
await provider.forceFlush();
const body = JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans());
writeFileSync(out, Buffer.from(body));
