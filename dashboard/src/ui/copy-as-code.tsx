// "Copy as code": the call behind a view or an action, as an SDK call, a curl command and an MCP
// tool call, generated from the SDK's operation table (RESOURCE_OPERATIONS), so what the
// dashboard teaches is exactly what the API takes.
import { useState } from "react";
import { RESOURCE_OPERATIONS } from "@subbridge/sdk";
import { useDashboard } from "../context";

export type OperationId = keyof typeof RESOURCE_OPERATIONS;

export interface CallShape {
  op: OperationId;
  path?: Record<string, string>;
  /** The JSON body (writes) or the query parameters (reads). */
  input?: Record<string, unknown> | undefined;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

export function codeFor(call: CallShape, apiUrl: string): { sdk: string; curl: string; mcp: string } {
  const op = RESOURCE_OPERATIONS[call.op];
  const path = call.path ?? {};
  const input = call.input && Object.keys(call.input).length ? call.input : undefined;
  const args = [...op.pathParams.map((p) => JSON.stringify(path[p] ?? `<${p}>`)), ...(input ? [json(input)] : [])];
  const sdk = `import { createClient } from "@subbridge/sdk";\n\nconst sb = createClient({ baseUrl: "${apiUrl}", token: process.env.SUBBRIDGE_TOKEN });\n${op.paged ? "const page = " : "const result = "}await sb.${op.resource}.${op.method}(${args.join(", ")});`;
  let url = `${apiUrl.replace(/\/v1\/?$/, "").replace(/\/$/, "")}${op.path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(path[p] ?? `<${p}>`))}`;
  if (op.input === "query" && input) url += `?${new URLSearchParams(Object.entries(input).map(([k, v]) => [k, String(v)]))}`;
  const curlLines = [`curl -X ${op.httpMethod} "${url}"`, `  -H "Authorization: Bearer $SUBBRIDGE_TOKEN"`];
  if (op.write) curlLines.push(`  -H "Idempotency-Key: $(uuidgen)"`);
  if (op.input === "body" && input) curlLines.push(`  -H "Content-Type: application/json"`, `  -d '${JSON.stringify(input).replace(/'/g, "'\\''")}'`);
  const mcp = json({
    method: "tools/call",
    params: { name: call.op, arguments: { ...Object.fromEntries(op.pathParams.map((p) => [p, path[p] ?? `<${p}>`])), ...(input ?? {}) } },
  });
  return { sdk, curl: curlLines.join(" \\\n"), mcp };
}

const TABS = [
  { key: "sdk", label: "SDK" },
  { key: "curl", label: "curl" },
  { key: "mcp", label: "MCP tool call" },
] as const;

export function CopyAsCode(props: CallShape & { label?: string }) {
  const { config } = useDashboard();
  const [tab, setTab] = useState<(typeof TABS)[number]["key"]>("sdk");
  const [copied, setCopied] = useState(false);
  const code = codeFor(props, config.apiUrl);
  return (
    <details className="copy-as-code">
      <summary>{props.label ?? "Copy as code"}</summary>
      <div className="tabs" role="group" aria-label="Code form">
        {TABS.map((t) => (
          <button
            key={t.key}
            type="button"
            className={t.key === tab ? "tab current" : "tab"}
            aria-pressed={t.key === tab}
            onClick={() => setTab(t.key)}
          >
            {t.label}
          </button>
        ))}
        <button
          type="button"
          className="tab copy"
          onClick={async () => {
            await navigator.clipboard?.writeText(code[tab]).catch(() => undefined);
            setCopied(true);
            setTimeout(() => setCopied(false), 1500);
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre tabIndex={0} aria-label={`${TABS.find((t) => t.key === tab)!.label} code`}>
        <code>{code[tab]}</code>
      </pre>
    </details>
  );
}
