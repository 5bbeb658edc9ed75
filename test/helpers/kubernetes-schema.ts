/**
 * Kubernetes objects checked against the API's own schemas without a cluster: kubernetes-models
 * validates types, required fields and formats, and its TypeScript declarations name every field
 * an object may have, so a misspelt field (which the schemas let through, and `kubectl apply`
 * refuses with strict field validation) fails here too.
 */
import { createRequire } from 'node:module';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import ts from 'typescript';

/** The kinds the recipes use; another kind fails until it is added here. */
const MODELS = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
} as const;

export type KnownKind = keyof typeof MODELS;

const require = createRequire(import.meta.url);

/** `apiVersion/kind` of a parsed document, or why it has none. */
export function kindOf(document: unknown): string {
  if (document === null || typeof document !== 'object') return '(not an object)';
  const { apiVersion, kind } = document as { apiVersion?: unknown; kind?: unknown };
  return `${String(apiVersion)}/${String(kind)}`;
}

export function isKnownKind(kind: string): kind is KnownKind {
  return Object.hasOwn(MODELS, kind);
}

/** The schema's complaints about one object (kubernetes-models' validate), or undefined. */
export function schemaProblem(kind: KnownKind, document: object): string | undefined {
  const Model = MODELS[kind];
  try {
    // The constructor only copies the fields; validate() checks them against the schema.
    new Model(document).validate();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The fields the declarations of kubernetes-models allow, read once for every kind the recipes use. */
export class FieldChecker {
  readonly #checker: ts.TypeChecker;
  readonly #types = new Map<KnownKind, ts.Type>();

  constructor() {
    const files = new Map<KnownKind, string>();
    for (const kind of Object.keys(MODELS) as KnownKind[])
      files.set(kind, require.resolve(`kubernetes-models/${kind}`).replace(/\.js$/, '.d.ts'));
    const program = ts.createProgram([...files.values()], {
      noEmit: true,
      skipLibCheck: true,
      types: [],
      // Only what the declarations use: no DOM, whose size would double the time.
      lib: ['lib.es5.d.ts'],
    });
    this.#checker = program.getTypeChecker();
    for (const [kind, file] of files) {
      const source = program.getSourceFile(file);
      const module = source === undefined ? undefined : this.#checker.getSymbolAtLocation(source);
      const name = `I${kind.slice(kind.lastIndexOf('/') + 1)}`;
      const symbol = module && this.#checker.getExportsOfModule(module).find((s) => s.name === name);
      if (symbol === undefined) throw new Error(`kubernetes-models declares no ${name} in ${file}`);
      this.#types.set(kind, this.#checker.getDeclaredTypeOfSymbol(symbol));
    }
  }

  /** Paths (`.spec.template…`) of the fields of an object that its kind does not have. */
  unknownFields(kind: KnownKind, document: object): string[] {
    const unknown: string[] = [];
    const type = this.#types.get(kind);
    if (type !== undefined) this.#walk(document, type, '', unknown);
    return unknown;
  }

  #walk(value: unknown, declared: ts.Type, path: string, unknown: string[]): void {
    if (value === null || typeof value !== 'object') return;
    const type = this.#checker.getNonNullableType(declared);
    if (type.isUnion()) {
      // IntOrString, Quantity and the like: numbers or strings, no fields to check.
      for (const member of type.types)
        if ((member.flags & ts.TypeFlags.Object) !== 0) this.#walk(value, member, path, unknown);
      return;
    }
    if (Array.isArray(value)) {
      const element = this.#checker.getIndexTypeOfType(type, ts.IndexKind.Number);
      if (element !== undefined)
        value.forEach((item, index) => {
          this.#walk(item, element, `${path}[${index}]`, unknown);
        });
      return;
    }
    // Labels, annotations, ConfigMap data: any key.
    const anyKey = this.#checker.getIndexTypeOfType(type, ts.IndexKind.String);
    for (const [key, field] of Object.entries(value)) {
      const property = this.#checker.getPropertyOfType(type, key);
      if (property !== undefined)
        this.#walk(field, this.#checker.getTypeOfSymbol(property), `${path}.${key}`, unknown);
      else if (anyKey !== undefined) this.#walk(field, anyKey, `${path}.${key}`, unknown);
      else unknown.push(`${path}.${key}`);
    }
  }
}
