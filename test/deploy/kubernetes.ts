// What the manifest test needs of Kubernetes without a cluster: kustomize builds (kubectl's own), schema validation
// against the Kubernetes API (kubernetes-models: its JSON schemas, and its TypeScript types for unknown fields),
// and how NetworkPolicies decide who may connect (the parts of the rules the manifests use).
import { join } from "node:path";
import ts from "typescript";
import { parseAllDocuments } from "yaml";

export const root = join(import.meta.dir, "..", "..");

/** One object as kustomize writes it. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: any;
}

/** `kubectl kustomize` is there (any kustomize it carries: v2.0.3 in kubectl 1.20, v5 in current ones), or why not. */
export function findBuilder(): { ok: true; version: string } | { ok: false; reason: string } {
  if (!Bun.which("kubectl")) return { ok: false, reason: "kubectl is not installed (.ci/run installs Debian's kubernetes-client)" };
  const help = Bun.spawnSync(["kubectl", "kustomize", "--help"], { stdout: "ignore", stderr: "pipe" });
  if (help.exitCode !== 0) return { ok: false, reason: `kubectl has no working kustomize: ${help.stderr.toString().trim()}` };
  const version = Bun.spawnSync(["kubectl", "version", "--client"], { stdout: "pipe", stderr: "ignore" }).stdout.toString();
  return { ok: true, version: version.replace(/\s+/g, " ").trim() };
}

/** The objects a kustomization directory (relative to the checkout) builds to; throws with kustomize's words. */
export function build(dir: string): K8sObject[] {
  const run = Bun.spawnSync(["kubectl", "kustomize", join(root, dir)], { stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${run.stderr.toString()}`);
  return parseAllDocuments(run.stdout.toString())
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

/**
 * The APIs the manifests may use: each served by Kubernetes 1.36 (the schemas kubernetes-models 5.1.0 ships). The
 * package also keeps models of APIs removed since, so a removed one would validate there: this list refuses it.
 */
export const servedApis = new Set(["v1", "apps/v1", "batch/v1", "autoscaling/v2", "policy/v1", "networking.k8s.io/v1"]);

/** The kubernetes-models module of an API object, e.g. `kubernetes-models/apps/v1/Deployment`. */
export function modelModule(o: Pick<K8sObject, "apiVersion" | "kind">): string {
  return `kubernetes-models/${o.apiVersion}/${o.kind}`;
}

/** The schema errors of one object (none: valid), from the package's validator of that kind. */
export async function schemaErrors(o: K8sObject): Promise<string[]> {
  const mod = (await import(modelModule(o))) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = mod[o.kind];
  if (!Model) return [`kubernetes-models has no ${o.apiVersion} ${o.kind}`];
  try {
    new Model(o).validate();
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

/**
 * Fields the Kubernetes API does not know, which its JSON schemas let through (they do not close objects) but the
 * API server refuses: each object is checked as an object literal of the package's TypeScript interface, whose
 * excess property check names any field the type lacks (a misspelt `readinesProbe`), at any depth.
 */
export function unknownFieldErrors(objects: { label: string; object: K8sObject }[]): string[] {
  const file = join(root, "test", "deploy", "__manifests__.ts");
  const lines = objects.map(
    ({ object }, i) => `import type { I${object.kind} as T${i} } from "${modelModule(object)}"; export const o${i}: T${i} = ${JSON.stringify(object)};`,
  );
  const text = lines.join("\n");
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, text, language) : getSourceFile(name, language, ...rest));
  host.fileExists = (name) => name === file || fileExists(name);
  host.readFile = (name) => (name === file ? text : readFile(name));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const where = d.file?.fileName === file ? (objects[line]?.label ?? "?") : (d.file?.fileName ?? "compiler");
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
  });
}

// ---- NetworkPolicy ----------------------------------------------------------------------------------------------

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: "In" | "NotIn" | "Exists" | "DoesNotExist"; values?: string[] }[];
}

/** Whether labels satisfy a selector (an empty selector selects everything). */
export function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    const ok =
      e.operator === "In" ? has && (e.values ?? []).includes(value!)
      : e.operator === "NotIn" ? !has || !(e.values ?? []).includes(value!)
      : e.operator === "Exists" ? has
      : !has;
    if (!ok) return false;
  }
  return true;
}

/** A pod in the cluster: its namespace's labels, its own labels, and its containers' named ports. */
export interface Pod {
  namespace: string;
  namespaceLabels: Record<string, string>;
  labels: Record<string, string>;
  ports?: Record<string, number>;
}

/**
 * Whether `from` may open a TCP connection to `to` on `port` under the policies of `to`'s namespace: allowed when no
 * policy selects `to` for ingress, else when a rule of one that does admits the peer and the port.
 */
export function admits(policies: K8sObject[], to: Pod, from: Pod, port: number): boolean {
  const applying = policies.filter((p) => p.metadata.namespace === to.namespace && selects(p.spec.podSelector, to.labels) && (p.spec.policyTypes ?? ["Ingress"]).includes("Ingress"));
  if (applying.length === 0) return true;
  return applying.some((p) =>
    (p.spec.ingress ?? []).some((rule: { from?: any[]; ports?: { port?: number | string; protocol?: string }[] }) => {
      const peerOk =
        !rule.from ||
        rule.from.some((peer) => {
          if (peer.ipBlock) return false;
          const nsOk = peer.namespaceSelector ? selects(peer.namespaceSelector, from.namespaceLabels) : from.namespace === to.namespace;
          return nsOk && selects(peer.podSelector, from.labels);
        });
      const portOk =
        !rule.ports ||
        rule.ports.some((r) => (r.protocol ?? "TCP") === "TCP" && (r.port === undefined || (typeof r.port === "number" ? r.port : to.ports?.[r.port]) === port));
      return peerOk && portOk;
    }),
  );
}
