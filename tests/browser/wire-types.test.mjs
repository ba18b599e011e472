// web/src/api/types.ts must cover the wire types of the OpenAPI document:
// every event type and part type, and every required field of the shapes the
// app reads. Uses openapi/openapi.json, or `tradewind openapi` when absent.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot, serverBin } from "./harness.mjs";

function loadSpec() {
  if (process.env.OPENAPI_JSON) return JSON.parse(readFileSync(process.env.OPENAPI_JSON, "utf8"));
  const committed = join(repoRoot, "openapi", "openapi.json");
  if (existsSync(committed)) return JSON.parse(readFileSync(committed, "utf8"));
  if (existsSync(serverBin)) return JSON.parse(execFileSync(serverBin, ["openapi"], { encoding: "utf8" }));
  return null;
}

/** interface name → { fields: Set, tag: string|null } from types.ts */
function parseTypes(src) {
  const out = new Map();
  const re = /export interface (\w+)(?:<[^>]*>)?(?: extends [^{]+)?\s*\{([\s\S]*?)\n\}/g;
  for (const m of src.matchAll(re)) {
    const fields = new Set();
    let tag = null;
    for (const line of m[2].split("\n")) {
      const f = /^\s+(\w+)\??:\s*(.*)$/.exec(line);
      if (!f) continue;
      fields.add(f[1]);
      const t = /^"([a-z_]+)"/.exec(f[2]);
      if (f[1] === "type" && t) tag = t[1];
    }
    out.set(m[1], { fields, tag });
  }
  return out;
}

const spec = loadSpec();
const skip = spec ? false : "no OpenAPI document and no server binary";
const types = parseTypes(readFileSync(join(repoRoot, "web", "src", "api", "types.ts"), "utf8"));
const BASE = new Set(["seq", "session", "run", "at"]);

/** Resolve $ref and merge allOf (flattened payloads such as plan_proposed). */
function flatten(schema) {
  if (schema.$ref) return flatten(spec.components.schemas[schema.$ref.split("/").pop()]);
  const out = { properties: { ...(schema.properties ?? {}) }, required: [...(schema.required ?? [])] };
  for (const part of schema.allOf ?? []) {
    const f = flatten(part);
    Object.assign(out.properties, f.properties);
    out.required.push(...f.required);
  }
  return out;
}

function variants(name) {
  const s = spec.components.schemas[name];
  return (s.oneOf ?? []).map((v) => {
    const f = flatten(v);
    return { tag: f.properties?.type?.enum?.[0], required: f.required };
  });
}

test("every event type and its required fields are typed", { skip }, () => {
  for (const v of variants("EventPayload")) {
    const iface = [...types.values()].find((t) => t.tag === v.tag);
    assert.ok(iface, `no interface for event "${v.tag}" in types.ts`);
    for (const f of v.required) {
      if (!BASE.has(f)) assert.ok(iface.fields.has(f), `event "${v.tag}": field "${f}" missing in types.ts`);
    }
  }
});

test("every event variant has a type tag", { skip }, () => {
  for (const v of variants("EventPayload")) assert.ok(v.tag, "an EventPayload variant without a type tag");
});

test("every display part type is typed", { skip }, () => {
  for (const v of variants("Part")) {
    const iface = [...types.values()].find((t) => t.tag === v.tag);
    assert.ok(iface, `no interface for part "${v.tag}"`);
    for (const f of v.required) assert.ok(iface.fields.has(f), `part "${v.tag}": field "${f}" missing`);
  }
});

test("Session, WhoAmI and ServerConfig fields are typed", { skip }, () => {
  for (const name of ["Session", "WhoAmI", "ServerConfig"]) {
    const schema = spec.components.schemas[name];
    assert.ok(schema, `schema ${name} missing from the OpenAPI document`);
    const iface = types.get(name === "WhoAmI" ? "WhoAmI" : name);
    assert.ok(iface, `interface ${name} missing`);
    for (const f of schema.required ?? []) assert.ok(iface.fields.has(f), `${name}.${f} missing in types.ts`);
  }
});

// Shapes of plans, questions, artifacts, tasks and setup, when the server has them.
const SHAPES = {
  Question: "Question",
  QuestionOption: "QuestionOption",
  PlanDiagram: "PlanDiagram",
  DroppedDiagram: "DroppedDiagram",
  ArtifactFile: "ArtifactFile",
  Artifact: "Artifact",
  PendingQuestion: "PendingQuestion",
  PendingPlan: "PendingPlan",
  Task: "Task",
  TaskOutput: "TaskOutput",
  ProbedServer: "ProbedServer",
};

test("plan, question, artifact, task and setup shapes are typed", { skip }, () => {
  for (const [schemaName, iface] of Object.entries(SHAPES)) {
    const schema = spec.components.schemas[schemaName];
    if (!schema) continue; // not in this server yet
    const t = types.get(iface);
    assert.ok(t, `interface ${iface} missing`);
    for (const f of flatten(schema).required) assert.ok(t.fields.has(f), `${iface}.${f} missing in types.ts`);
  }
});
