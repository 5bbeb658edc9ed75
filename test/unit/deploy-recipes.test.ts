/**
 * The recipes in deploy/ (systemd units, Kubernetes manifests) checked as systemd and a cluster would
 * read them, since neither runs here: every Kubernetes object against the API's schemas with no
 * unknown field, the references between objects (roles, probes, ports, selectors, configuration), and
 * every setting they give is one Atoll reads, so a typo fails here rather than being ignored in production.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import { loadPlatformKey } from '../../src/main/platform-key.js';
import { FieldChecker, isKnownKind, kindOf, schemaProblem } from '../helpers/kubernetes-schema.js';
import {
  environmentAssignments,
  parseEnvironmentFile,
  parseUnitFile,
  unitValue,
  unitValues,
  type UnitFile,
} from '../helpers/systemd-unit.js';

/** What `atoll serve --roles` accepts (docs/cli.md). */
const ROLES = ['api', 'worker', 'runtime', 'edge', 'scheduler'] as const;
/** The roles that start sandboxes, and so need root and what bubblewrap needs (docs/security.md). */
const SANDBOX_ROLES: readonly string[] = ['worker', 'runtime'];

const KUBERNETES = new URL('../../deploy/kubernetes/', import.meta.url);
const SYSTEMD = new URL('../../deploy/systemd/', import.meta.url);
const INSTALLED_BINARY = '/usr/local/bin/atoll';
const ENVIRONMENT_FILE = '/etc/atoll/atoll.env';

/** Read by the AWS SDK for JavaScript v3 itself, from the environment of the process. */
const AWS_SDK_SETTINGS = ['AWS_ENDPOINT_URL_S3', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'];

/**
 * Settings the recipes give before src/config/load-config.ts reads them (issue 25's blob store, on
 * its way). Per name: one load-config reads is simply known; one it does not read yet passes, listed
 * as a todo below, so it becomes known on its own once it lands. Only these names: any other name
 * Atoll does not read fails, pending or misspelt alike.
 */
const PENDING_SETTINGS = ['ATOLL_BLOB_URL', 'ATOLL_BLOB_FORCE_PATH_STYLE'];

/** The names load-config.ts reads: its quoted setting names and its `env.NAME` reads. */
function settingsReadByLoadConfig(): ReadonlySet<string> {
  const source = readFileSync(new URL('../../src/config/load-config.ts', import.meta.url), 'utf8');
  const names = new Set<string>();
  for (const match of source.matchAll(/'([A-Z][A-Z0-9_]*)'|\benv\.([A-Z][A-Z0-9_]*)\b/g)) {
    const name = match[1] ?? match[2]!;
    if (/^(ATOLL_|AWS_)|^DATABASE_URL$/.test(name)) names.add(name);
  }
  return names;
}

const READ_BY_LOAD_CONFIG = settingsReadByLoadConfig();
const NOT_READ_YET = PENDING_SETTINGS.filter((name) => !READ_BY_LOAD_CONFIG.has(name));
const KNOWN_SETTINGS: ReadonlySet<string> = new Set([
  ...READ_BY_LOAD_CONFIG,
  ...AWS_SDK_SETTINGS,
  ...NOT_READ_YET,
]);

function unknownSettings(names: Iterable<string>): string[] {
  return [...names].filter((name) => !KNOWN_SETTINGS.has(name));
}

// ---------------------------------------------------------------------------------------------
// Kubernetes

interface Manifest {
  readonly file: string;
  readonly kind: string;
  readonly object: Record<string, unknown>;
}

function readManifests(): { readonly manifests: Manifest[]; readonly kustomization: unknown } {
  const manifests: Manifest[] = [];
  let kustomization: unknown;
  for (const file of readdirSync(KUBERNETES).filter((name) => /\.ya?ml$/.test(name))) {
    const documents = parseAllDocuments(readFileSync(new URL(file, KUBERNETES), 'utf8'), {
      uniqueKeys: true,
      strict: true,
    });
    assert.ok(Array.isArray(documents), `${file}: no YAML document`);
    for (const document of documents) {
      const problems = [...document.errors, ...document.warnings].map((p) => p.message);
      assert.deepEqual(problems, [], `${file}: YAML problems`);
      const object: unknown = document.toJS();
      if (object === null) continue;
      if (file === 'kustomization.yaml') kustomization = object;
      else manifests.push({ file, kind: kindOf(object), object: object as Record<string, unknown> });
    }
  }
  return { manifests, kustomization };
}

const { manifests, kustomization } = readManifests();

function objectsOf<T>(kind: string): (T & { readonly file: string })[] {
  return manifests.filter((m) => m.kind === kind).map((m) => ({ ...(m.object as T), file: m.file }));
}

const deployments = objectsOf<IDeployment>('apps/v1/Deployment');
const services = objectsOf<IService>('v1/Service');
const jobs = objectsOf<IJob>('batch/v1/Job');
const configMaps = objectsOf<IConfigMap>('v1/ConfigMap');
const secrets = objectsOf<ISecret>('v1/Secret');

function theOne<T>(items: readonly T[], what: string): T {
  assert.equal(items.length, 1, `exactly one ${what}`);
  return items[0]!;
}

const configMap = theOne(configMaps, 'ConfigMap');
const secret = theOne(secrets, 'Secret');
const configData: Readonly<Record<string, string>> = configMap.data ?? {};
const secretData: Readonly<Record<string, string>> = secret.stringData ?? {};
const healthPort = Number(configData.ATOLL_HEALTH_PORT);

function podSpecOf(owner: {
  readonly spec?: { readonly template?: { readonly spec?: IPodSpec } };
}): IPodSpec {
  const spec = owner.spec?.template?.spec;
  assert.ok(spec, 'a pod template with a spec');
  return spec;
}

function theContainer(spec: IPodSpec, where: string): IContainer {
  return theOne(spec.containers, `container in ${where}`);
}

/** The container port a probe or Service names (by name or number), or undefined if none declares it. */
function declaredPort(container: IContainer, port: number | string | undefined): number | undefined {
  const found = (container.ports ?? []).find((p) => p.name === port || p.containerPort === port);
  return found?.containerPort;
}

function labelsSelect(
  selector: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** The Deployments whose pods a selector picks. */
function deploymentsSelected(selector: Readonly<Record<string, string>> | undefined): typeof deployments {
  assert.ok(selector && Object.keys(selector).length > 0, 'a selector that is not empty');
  return deployments.filter((d) => labelsSelect(selector, d.spec?.template.metadata?.labels ?? {}));
}

function checkConfiguration(container: IContainer, where: string): void {
  const sources = (container.envFrom ?? []).map((source) => ({
    configMap: source.configMapRef?.name,
    secret: source.secretRef?.name,
  }));
  assert.ok(
    sources.some((s) => s.configMap === configMap.metadata?.name),
    `${where} takes its environment from the ConfigMap`,
  );
  assert.ok(
    sources.some((s) => s.secret === secret.metadata?.name),
    `${where} takes its environment from the Secret`,
  );
  // A name outside Atoll's (POD_IP) is a helper that a setting after it spells out as $(NAME).
  const env = container.env ?? [];
  const helpers = env
    .map((e) => e.name)
    .filter((name) => !/^(ATOLL_|AWS_)|^DATABASE_URL$/.test(name))
    .filter((name) => env.some((e) => e.value?.includes(`$(${name})`) === true));
  assert.deepEqual(
    unknownSettings(env.map((e) => e.name).filter((name) => !helpers.includes(name))),
    [],
    `${where}: unknown settings`,
  );
}

/** A container's own settings as a pod sees them, `$(NAME)` spelt out, field references as `example`. */
function containerSettings(container: IContainer, example: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const e of container.env ?? [])
    settings[e.name] =
      e.value?.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (all, name: string) => settings[name] ?? all) ??
      example;
  return settings;
}

function checkDataFolder(spec: IPodSpec, container: IContainer, where: string): void {
  const mount = (container.volumeMounts ?? []).find((m) => m.mountPath === configData.ATOLL_DATA_DIR);
  assert.ok(mount, `${where} mounts a volume on ATOLL_DATA_DIR (${String(configData.ATOLL_DATA_DIR)})`);
  const volume = (spec.volumes ?? []).find((v) => v.name === mount.name);
  assert.ok(
    volume?.emptyDir ?? volume?.ephemeral,
    `${where}: the data folder is an emptyDir or ephemeral volume`,
  );
}

describe('Kubernetes manifests in deploy/kubernetes', () => {
  it('are objects of the Kubernetes API, valid against their schemas', () => {
    assert.ok(manifests.length > 0, 'no manifest found');
    for (const { file, kind, object } of manifests) {
      assert.ok(isKnownKind(kind), `${file}: ${kind} is not a kind this test knows (add its model)`);
      assert.equal(schemaProblem(kind, object), undefined, `${file}: ${kind} against its schema`);
    }
  });

  it('have no field that their kind does not have (prevents a misspelt field being ignored)', () => {
    const fields = new FieldChecker();
    for (const { file, kind, object } of manifests) {
      if (!isKnownKind(kind)) continue;
      assert.deepEqual(fields.unknownFields(kind, object), [], `${file}: fields ${kind} does not have`);
    }
    // The checker itself: a misspelt probe is caught.
    const deployment = manifests.find((m) => m.kind === 'apps/v1/Deployment')!;
    const misspelt = structuredClone(deployment.object) as {
      spec: { template: { spec: { containers: Record<string, unknown>[] } } };
    };
    misspelt.spec.template.spec.containers[0]!.readinessProbes = {};
    assert.deepEqual(fields.unknownFields('apps/v1/Deployment', misspelt), [
      '.spec.template.spec.containers[0].readinessProbes',
    ]);
  });

  it('are all listed in kustomization.yaml, each object named once', () => {
    const listed = (kustomization as { resources?: string[] } | undefined)?.resources ?? [];
    const files = [...new Set(manifests.map((m) => m.file))];
    assert.deepEqual([...listed].sort(), files.sort());
    const names = manifests.map((m) => `${m.kind} ${String((m.object.metadata as { name?: string }).name)}`);
    assert.deepEqual(
      names.filter((name, i) => names.indexOf(name) !== i),
      [],
    );
  });

  it('run every role in a Deployment of its own, as `atoll serve --roles <role>`', () => {
    for (const role of ROLES) {
      const deployment = deployments.find((d) => d.metadata?.name === `atoll-${role}`);
      assert.ok(deployment, `a Deployment atoll-${role}`);
      const argv = [
        ...(theContainer(podSpecOf(deployment), role).command ?? []),
        ...(theContainer(podSpecOf(deployment), role).args ?? []),
      ];
      assert.deepEqual(argv, ['atoll', 'serve', '--roles', role], `atoll-${role}'s command`);
    }
    for (const deployment of deployments) {
      const [, command, flag, roles, ...rest] = [
        ...(theContainer(podSpecOf(deployment), deployment.file).command ?? []),
        ...(theContainer(podSpecOf(deployment), deployment.file).args ?? []),
      ];
      assert.deepEqual(
        [command, flag, rest],
        ['serve', '--roles', []],
        `${deployment.file}: atoll serve --roles`,
      );
      for (const role of String(roles).split(','))
        assert.ok((ROLES as readonly string[]).includes(role), `${deployment.file}: ${role} is not a role`);
    }
  });

  it('select the pods of their own template', () => {
    for (const deployment of deployments) {
      const selector = deployment.spec?.selector.matchLabels ?? {};
      assert.ok(Object.keys(selector).length > 0, `${deployment.file}: a selector`);
      assert.ok(
        labelsSelect(selector, deployment.spec?.template.metadata?.labels ?? {}),
        `${deployment.file}: the selector picks the template's pods`,
      );
    }
    assert.equal(
      new Set(deployments.map((d) => JSON.stringify(d.spec?.selector.matchLabels))).size,
      deployments.length,
      'no two Deployments select the same pods',
    );
  });

  it('probe /healthz for liveness and /readyz for readiness on the health port', () => {
    assert.ok(Number.isInteger(healthPort), 'the ConfigMap sets ATOLL_HEALTH_PORT');
    for (const deployment of deployments) {
      const container = theContainer(podSpecOf(deployment), deployment.file);
      const probes = {
        readiness: container.readinessProbe?.httpGet,
        liveness: container.livenessProbe?.httpGet,
        startup: container.startupProbe?.httpGet,
      };
      assert.equal(probes.readiness?.path, '/readyz', `${deployment.file}: readiness probe`);
      assert.equal(probes.liveness?.path, '/healthz', `${deployment.file}: liveness probe`);
      if (probes.startup !== undefined)
        assert.equal(probes.startup.path, '/healthz', `${deployment.file}: startup probe`);
      for (const [name, probe] of Object.entries(probes))
        if (probe !== undefined)
          assert.equal(
            declaredPort(container, probe.port),
            healthPort,
            `${deployment.file}: ${name} probe's port`,
          );
    }
  });

  it('give every pod its configuration, resources and a data folder of its own', () => {
    const pods = [
      ...deployments.map((d) => ({ where: d.file, spec: podSpecOf(d) })),
      ...jobs.map((j) => ({ where: j.file, spec: podSpecOf(j) })),
    ];
    for (const { where, spec } of pods) {
      const container = theContainer(spec, where);
      assert.equal(container.image, 'atoll:latest', `${where}: the documented image placeholder`);
      checkConfiguration(container, where);
      checkDataFolder(spec, container, where);
      const { requests, limits } = container.resources ?? {};
      assert.ok(
        requests?.cpu !== undefined && requests.memory !== undefined,
        `${where}: cpu and memory requests`,
      );
      assert.ok(limits?.memory !== undefined, `${where}: a memory limit`);
      // Service links would set ATOLL_API_PORT=tcp://… from the atoll-api Service's name.
      assert.equal(spec.enableServiceLinks, false, `${where}: enableServiceLinks: false`);
    }
  });

  it('run worker and runtime privileged for the sandbox, and nothing else', () => {
    for (const deployment of deployments) {
      const spec = podSpecOf(deployment);
      const container = theContainer(spec, deployment.file);
      const role = deployment.metadata?.name?.replace(/^atoll-/, '') ?? '';
      if (SANDBOX_ROLES.includes(role)) {
        assert.equal(container.securityContext?.privileged, true, `${deployment.file}: privileged`);
        assert.notEqual(
          spec.securityContext?.runAsNonRoot,
          true,
          `${deployment.file}: root in the container`,
        );
      } else {
        assert.notEqual(container.securityContext?.privileged, true, `${deployment.file}: not privileged`);
        assert.equal(
          container.securityContext?.allowPrivilegeEscalation,
          false,
          `${deployment.file}: no privilege escalation`,
        );
        assert.equal(spec.securityContext?.runAsNonRoot, true, `${deployment.file}: runAsNonRoot`);
      }
    }
    for (const job of jobs)
      assert.equal(podSpecOf(job).securityContext?.runAsNonRoot, true, `${job.file}: runAsNonRoot`);
  });

  it('migrate in a Job with `atoll migrate`, and the roles do not migrate at start', () => {
    const job = theOne(jobs, 'Job');
    const container = theContainer(podSpecOf(job), job.file);
    assert.deepEqual([...(container.command ?? []), ...(container.args ?? [])], ['atoll', 'migrate']);
    assert.equal(configData.ATOLL_MIGRATE, 'off');
  });

  it('expose the api and the edge through Services that select pods and target ports they declare', () => {
    for (const service of services) {
      const selected = deploymentsSelected(service.spec?.selector);
      assert.ok(
        selected.length > 0,
        `${service.file}: Service ${String(service.metadata?.name)} selects no pods`,
      );
      for (const port of service.spec?.ports ?? [])
        for (const deployment of selected)
          assert.ok(
            declaredPort(
              theContainer(podSpecOf(deployment), deployment.file),
              port.targetPort ?? port.port,
            ) !== undefined,
            `${service.file}: ${deployment.metadata?.name ?? ''} declares no port ${String(port.targetPort)}`,
          );
    }
    const forwards = (name: string): Record<number, number | undefined> => {
      const service = theOne(
        services.filter((s) => s.metadata?.name === name),
        `Service ${name}`,
      );
      const [deployment] = deploymentsSelected(service.spec?.selector);
      const container = theContainer(podSpecOf(deployment!), name);
      return Object.fromEntries(
        (service.spec?.ports ?? []).map((p) => [p.port, declaredPort(container, p.targetPort ?? p.port)]),
      );
    };
    assert.deepEqual(forwards('atoll-api'), { 80: Number(configData.ATOLL_API_PORT) });
    assert.deepEqual(forwards('atoll-edge'), {
      80: Number(configData.ATOLL_EDGE_PORT),
      443: Number(configData.ATOLL_EDGE_TLS_PORT),
    });
  });

  it('let only the edges reach the runtime origin server, on the port the runtime declares and advertises', () => {
    const runtime = deployments.find((d) => d.metadata?.name === 'atoll-runtime')!;
    const runtimeLabels = runtime.spec?.template.metadata?.labels ?? {};
    const container = theContainer(podSpecOf(runtime), runtime.file);
    const settings = { ...configData, ...secretData, ...containerSettings(container, '10.1.2.3') };
    const originPort = Number(settings.ATOLL_RUNTIME_PORT ?? 8090);
    assert.equal(declaredPort(container, 'origin'), originPort, 'the runtime declares its origin port');
    assert.notEqual(settings.ATOLL_RUNTIME_HOST ?? '127.0.0.1', '127.0.0.1', 'listens beyond loopback');
    assert.equal(settings.ATOLL_RUNTIME_ADDRESS, `10.1.2.3:${String(originPort)}`, 'advertises its pod IP');
    assert.doesNotThrow(() => loadConfig(settings, '/'));

    const edges = deployments.filter((d) => d.metadata?.name === 'atoll-edge');
    const policies = objectsOf<INetworkPolicy>('networking.k8s.io/v1/NetworkPolicy').filter((p) =>
      labelsSelect(p.spec?.podSelector.matchLabels ?? {}, runtimeLabels),
    );
    assert.ok(policies.length > 0, 'a NetworkPolicy for the runtime pods');
    const rules = policies.flatMap((p) => p.spec?.ingress ?? []);
    const opensOrigin = (rule: (typeof rules)[number]): boolean =>
      (rule.ports ?? [{}]).some((p) => p.port === undefined || p.port === 'origin' || p.port === originPort);
    const originRules = rules.filter(opensOrigin);
    assert.ok(originRules.length > 0, 'some rule lets the edges reach the origin port');
    for (const rule of originRules) {
      const peers = rule.from ?? [];
      assert.ok(peers.length > 0, 'the origin port is not open to every pod');
      for (const peer of peers) {
        const selected = deploymentsSelected(peer.podSelector?.matchLabels);
        assert.ok(peer.ipBlock === undefined && peer.namespaceSelector === undefined, 'pods only');
        assert.deepEqual(selected, edges, 'the origin port is open to the edge pods only');
      }
      assert.ok(
        (rule.ports ?? []).length > 0,
        'the edges reach the origin port, not every port of the runtime (the apps stay on its loopback)',
      );
    }
  });

  it('select existing pods in their disruption budgets and network policies', () => {
    const selectors = [
      ...objectsOf<IPodDisruptionBudget>('policy/v1/PodDisruptionBudget').map((p) => ({
        where: p.file,
        labels: p.spec?.selector?.matchLabels,
      })),
      ...objectsOf<INetworkPolicy>('networking.k8s.io/v1/NetworkPolicy').flatMap((p) => [
        { where: p.file, labels: p.spec?.podSelector.matchLabels },
        ...(p.spec?.ingress ?? []).flatMap((rule) =>
          (rule.from ?? []).map((peer) => ({ where: p.file, labels: peer.podSelector?.matchLabels })),
        ),
      ]),
    ];
    for (const { where, labels } of selectors)
      assert.ok(
        deploymentsSelected(labels).length > 0,
        `${where}: ${JSON.stringify(labels)} selects no pods`,
      );
  });

  it('give only settings Atoll reads, in the ConfigMap and the Secret (prevents a misspelt setting)', () => {
    assert.deepEqual(unknownSettings(Object.keys(configData)), [], 'ConfigMap');
    assert.deepEqual(unknownSettings(Object.keys(secretData)), [], 'Secret');
    assert.deepEqual(secret.data, undefined, 'the Secret is written as stringData, readable');
    // Values Atoll checks at start are valid (the settings it does not know yet are ignored here).
    assert.doesNotThrow(() => loadConfig({ ...configData, ...secretData }, '/'));
  });

  it('mark every secret value as a placeholder, and a pod refuses the placeholder key', () => {
    // Every process needs the same platform key: a key file per pod would be a key per pod.
    assert.ok(secretData.ATOLL_SECRET_KEY !== undefined, 'the Secret holds ATOLL_SECRET_KEY');
    for (const [name, value] of Object.entries(secretData))
      assert.match(value, /REPLACE_ME/, `${name} is a placeholder`);
    assert.throws(
      () => loadPlatformKey(secretData.ATOLL_SECRET_KEY, '/nonexistent'),
      /ATOLL_SECRET_KEY must hold/,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// systemd

function readUnit(name: string): UnitFile {
  return parseUnitFile(readFileSync(new URL(name, SYSTEMD), 'utf8'), name);
}

const roleUnits = new Map(ROLES.map((role) => [role, readUnit(`atoll-${role}.service`)]));
const migrateUnit = readUnit('atoll-migrate.service');
const environmentFile = parseEnvironmentFile(readFileSync(new URL('atoll.env.example', SYSTEMD), 'utf8'));

/** The variables a unit's Environment= lines set. */
function unitEnvironment(unit: UnitFile): Map<string, string> {
  return new Map(unitValues(unit, 'Service', 'Environment').flatMap(environmentAssignments));
}

describe('systemd units in deploy/systemd', () => {
  it('run every role from the installed binary as `atoll serve --roles <role>`', () => {
    const files = readdirSync(SYSTEMD).filter((name) => name.endsWith('.service'));
    assert.deepEqual(
      files.sort(),
      ['atoll-migrate.service', ...ROLES.map((r) => `atoll-${r}.service`)].sort(),
    );
    for (const [role, unit] of roleUnits) {
      const [binary, ...args] = (unitValue(unit, 'Service', 'ExecStart') ?? '').split(/\s+/);
      assert.equal(binary, INSTALLED_BINARY, `atoll-${role}: ExecStart`);
      assert.deepEqual(args.slice(0, 2), ['serve', '--roles'], `atoll-${role}: ExecStart`);
      assert.deepEqual(args.slice(2), [role], `atoll-${role}: its own role`);
      assert.equal(unitValue(unit, 'Service', 'Restart'), 'always', `atoll-${role}: Restart`);
      assert.deepEqual(unitValues(unit, 'Install', 'WantedBy'), ['atoll.target'], `atoll-${role}: WantedBy`);
    }
    assert.equal(unitValue(migrateUnit, 'Service', 'ExecStart'), `${INSTALLED_BINARY} migrate`);
    assert.equal(unitValue(migrateUnit, 'Service', 'Type'), 'oneshot');
  });

  it('read the settings file, and only settings Atoll reads (prevents a misspelt setting)', () => {
    for (const [name, unit] of [...roleUnits.entries(), ['migrate', migrateUnit] as const]) {
      assert.deepEqual(unitValues(unit, 'Service', 'EnvironmentFile'), [ENVIRONMENT_FILE], `atoll-${name}`);
      assert.deepEqual(unknownSettings(unitEnvironment(unit).keys()), [], `atoll-${name}: Environment=`);
    }
    assert.deepEqual(unknownSettings(environmentFile.set.keys()), [], 'atoll.env.example');
    assert.deepEqual(unknownSettings(environmentFile.offered), [], 'atoll.env.example, commented out');
    assert.equal(environmentFile.set.get('ATOLL_MIGRATE'), 'off');
    assert.ok(environmentFile.set.has('ATOLL_SECRET_KEY'), 'atoll.env.example sets the platform key');
    assert.doesNotThrow(() => loadConfig(Object.fromEntries(environmentFile.set), '/'));
    assert.throws(
      () => loadPlatformKey(environmentFile.set.get('ATOLL_SECRET_KEY'), '/nonexistent'),
      /must hold/,
    );
  });

  it('give each process on a machine its own data folder and health port', () => {
    // EnvironmentFile= overrides Environment=: set there, these would be the same for every unit.
    for (const name of ['ATOLL_DATA_DIR', 'ATOLL_HEALTH_PORT'])
      assert.equal(environmentFile.set.has(name), false, `atoll.env.example sets ${name}`);
    const perUnit = [...roleUnits.values()].map(unitEnvironment);
    for (const name of ['ATOLL_DATA_DIR', 'ATOLL_HEALTH_PORT']) {
      const values = perUnit.map((environment) => environment.get(name));
      assert.ok(
        values.every((v) => v !== undefined),
        `every role unit sets ${name}`,
      );
      assert.equal(new Set(values).size, values.length, `${name} differs from unit to unit`);
    }
  });

  it('give every listener on a machine a port of its own, the runtime origin server on a private address', () => {
    const settings = Object.fromEntries(environmentFile.set);
    const ports = [
      Number(settings.ATOLL_API_PORT ?? 8080),
      Number(settings.ATOLL_EDGE_PORT ?? 8081),
      Number(settings.ATOLL_EDGE_TLS_PORT ?? 8443),
      Number(settings.ATOLL_RUNTIME_PORT ?? 8090),
      ...[...roleUnits.values()].map((unit) => Number(unitEnvironment(unit).get('ATOLL_HEALTH_PORT'))),
    ];
    assert.equal(new Set(ports).size, ports.length, `ports ${ports.join(', ')}`);
    const host = settings.ATOLL_RUNTIME_HOST ?? '127.0.0.1';
    assert.notEqual(host, '127.0.0.1', 'the runtime origin server listens where the edges reach it');
    assert.notEqual(host, '0.0.0.0', 'the runtime origin server listens on a private address');
  });

  it('order the migrations before every role', () => {
    const before = unitValues(migrateUnit, 'Unit', 'Before').flatMap((v) => v.split(/\s+/));
    for (const role of ROLES) {
      const unit = roleUnits.get(role)!;
      assert.ok(before.includes(`atoll-${role}.service`), `atoll-migrate is Before= atoll-${role}`);
      for (const key of ['After', 'Wants'])
        assert.ok(
          unitValues(unit, 'Unit', key).some((v) => v.split(/\s+/).includes('atoll-migrate.service')),
          `atoll-${role}: ${key}=atoll-migrate.service`,
        );
    }
  });

  it('run worker and runtime as root without the hardening that breaks bubblewrap (prevents a unit whose builds cannot start)', () => {
    // Each of these stops bubblewrap, slirp4netns or nft as the sandbox uses them (docs/security.md).
    const breaksSandbox: Record<string, (value: string) => boolean> = {
      PrivateUsers: (v) => v !== 'no',
      PrivateDevices: (v) => v !== 'no',
      ProtectClock: (v) => v !== 'no',
      ProtectHostname: (v) => v !== 'no',
      DynamicUser: (v) => v !== 'no',
      SystemCallFilter: () => true,
      CapabilityBoundingSet: () => true,
      RestrictNamespaces: (v) => v !== '~user' && v !== 'no',
      DevicePolicy: (v) => v !== 'auto',
      DeviceAllow: () => true,
    };
    for (const role of SANDBOX_ROLES) {
      const unit = roleUnits.get(role as (typeof ROLES)[number])!;
      assert.equal(unitValue(unit, 'Service', 'User') ?? 'root', 'root', `atoll-${role}: root`);
      for (const [key, breaks] of Object.entries(breaksSandbox)) {
        const value = unitValue(unit, 'Service', key);
        assert.ok(value === undefined || !breaks(value), `atoll-${role}: ${key}=${String(value)}`);
      }
    }
    const sysusers = readFileSync(new URL('atoll-sysusers.conf', SYSTEMD), 'utf8');
    for (const [role, unit] of roleUnits)
      if (!SANDBOX_ROLES.includes(role)) {
        const user = unitValue(unit, 'Service', 'User');
        assert.ok(user !== undefined && user !== 'root', `atoll-${role}: a user of its own`);
        assert.match(sysusers, new RegExp(`^u ${user} `, 'm'), `atoll-sysusers.conf creates ${user}`);
      }
  });
});

describe('settings the recipes give before Atoll reads them', () => {
  const title = 'are read by src/config/load-config.ts';
  if (NOT_READ_YET.length > 0) it(title, { todo: `not read yet: ${NOT_READ_YET.join(', ')}` });
  else
    it(title, () => {
      assert.deepEqual(NOT_READ_YET, []);
    });
});
