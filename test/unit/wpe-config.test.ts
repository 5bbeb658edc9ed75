import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import {
  ROOT_FIELD,
  WpeConfigError,
  planFromWpeJson,
  suggestAppId,
  type WpeConfigViolation,
} from '../../src/cli/wpe-config.js';

const BASE_DIR = resolve('/projects/my-site');

/** The example of the public service's documentation, with the appId Atoll needs. */
function example(): Record<string, any> {
  return {
    name: 'my-headless-app',
    repo: 'uploadable',
    region: 'US-C',
    environments: [
      {
        name: 'Production',
        branch: '-',
        wp_environment_name: 'headlesswpe',
        domains: ['yourdomain.com'],
        env_variables: [{ key: 'WORDPRESS_URL', value: 'https://headlesswpe.wpengine.com' }],
        zip_file_path: './build/site.zip',
      },
    ],
  };
}

/** Same as example() with the environment's fields replaced by those given. */
function withEnvironment(fields: Record<string, unknown>): Record<string, any> {
  const config = example();
  config.environments = [{ ...config.environments[0], ...fields }];
  return config;
}

function violationsOf(parsed: unknown): readonly WpeConfigViolation[] {
  try {
    planFromWpeJson(parsed, BASE_DIR);
  } catch (error) {
    assert.ok(error instanceof WpeConfigError, `expected a WpeConfigError, got ${String(error)}`);
    return error.violations;
  }
  assert.fail('expected a WpeConfigError');
}

function fieldsOf(parsed: unknown): string[] {
  return violationsOf(parsed).map((v) => v.field);
}

function descriptionOf(parsed: unknown, field: string): string {
  const found = violationsOf(parsed).find((v) => v.field === field);
  assert.ok(found, `expected a violation on ${field}`);
  return found.description;
}

describe('planFromWpeJson', () => {
  it('maps the documented example exactly', () => {
    assert.deepEqual(planFromWpeJson(example(), BASE_DIR), {
      appId: 'my-headless-app',
      region: 'regions/US-C',
      environments: [
        {
          displayName: 'Production',
          wpEnvironment: 'headlesswpe',
          shellVariables: [{ key: 'WORDPRESS_URL', value: 'https://headlesswpe.wpengine.com' }],
          domains: ['yourdomain.com'],
          zipFilePath: resolve(BASE_DIR, 'build/site.zip'),
        },
      ],
      ignoredFields: [],
    });
  });

  it('defaults the optional environment fields and leaves zipFilePath out', () => {
    const plan = planFromWpeJson(
      { ...example(), environments: [{ name: 'Staging', branch: 'uploadable' }] },
      BASE_DIR,
    );
    assert.deepEqual(plan.environments, [
      { displayName: 'Staging', wpEnvironment: '', shellVariables: [], domains: [] },
    ]);
    assert.ok(!('zipFilePath' in plan.environments[0]!));
  });

  it('treats null optional fields as absent', () => {
    const plan = planFromWpeJson(
      withEnvironment({ wp_environment_name: null, domains: null, env_variables: null, zip_file_path: null }),
      BASE_DIR,
    );
    assert.deepEqual(plan.environments, [
      { displayName: 'Production', wpEnvironment: '', shellVariables: [], domains: [] },
    ]);
  });

  it('keeps several environments in order', () => {
    const config = example();
    config.environments.push({ name: 'Staging', branch: '-', domains: ['staging.yourdomain.com'] });
    const plan = planFromWpeJson(config, BASE_DIR);
    assert.deepEqual(
      plan.environments.map((e) => [e.displayName, e.domains]),
      [
        ['Production', ['yourdomain.com']],
        ['Staging', ['staging.yourdomain.com']],
      ],
    );
  });

  it('keeps the secret flag of a variable when given', () => {
    const plan = planFromWpeJson(
      withEnvironment({
        env_variables: [
          { key: 'API_TOKEN', value: 's3cret', secret: true },
          { key: 'PUBLIC', value: 'yes', secret: false },
          { key: 'EMPTY', value: '' },
        ],
      }),
      BASE_DIR,
    );
    assert.deepEqual(plan.environments[0]!.shellVariables, [
      { key: 'API_TOKEN', value: 's3cret', secret: true },
      { key: 'PUBLIC', value: 'yes', secret: false },
      { key: 'EMPTY', value: '' },
    ]);
  });

  it('trims and lower-cases domains', () => {
    const plan = planFromWpeJson(
      withEnvironment({ domains: ['  WWW.Example.COM ', 'Example.com.'] }),
      BASE_DIR,
    );
    assert.deepEqual(plan.environments[0]!.domains, ['www.example.com', 'example.com']);
  });

  describe('region', () => {
    it('accepts the bare id and the regions/ form of all four regions', () => {
      for (const id of ['US-C', 'AUS-SE', 'UK', 'EU-W']) {
        assert.equal(planFromWpeJson({ ...example(), region: id }, BASE_DIR).region, `regions/${id}`);
        assert.equal(
          planFromWpeJson({ ...example(), region: `regions/${id}` }, BASE_DIR).region,
          `regions/${id}`,
        );
      }
    });

    it('ignores letter case', () => {
      for (const region of ['uk', 'Uk', 'regions/uk', 'REGIONS/UK', 'Regions/Uk']) {
        assert.equal(planFromWpeJson({ ...example(), region }, BASE_DIR).region, 'regions/UK');
      }
      assert.equal(planFromWpeJson({ ...example(), region: 'aus-se' }, BASE_DIR).region, 'regions/AUS-SE');
    });

    it('refuses unknown, empty, missing and non-string regions', () => {
      for (const region of ['MARS', '', 'regions/', 'regions/regions/UK', ' UK', 'US', 42, undefined]) {
        assert.deepEqual(fieldsOf({ ...example(), region }), ['region'], `region ${String(region)}`);
      }
      assert.match(descriptionOf({ ...example(), region: 'MARS' }, 'region'), /US-C, AUS-SE, UK, EU-W/);
    });
  });

  describe('violations', () => {
    it('refuses a file that is not an object', () => {
      for (const parsed of [null, [], 'wpe', 3, undefined]) {
        assert.deepEqual(fieldsOf(parsed), [ROOT_FIELD]);
      }
    });

    it('does not rename a capitalised name but suggests a lower-case, hyphenated appId', () => {
      const description = descriptionOf({ ...example(), name: 'MyHeadlessApp' }, 'name');
      assert.match(description, /lowercase letters, digits and hyphens/);
      assert.match(description, /"my-headless-app"/);
    });

    it('refuses other names that break the appId rule', () => {
      for (const name of ['ab', '1app', 'app-', 'a'.repeat(41), 'my_app', '', 12, undefined]) {
        assert.deepEqual(fieldsOf({ ...example(), name }), ['name'], `name ${String(name)}`);
      }
      assert.doesNotMatch(descriptionOf({ ...example(), name: '123' }, 'name'), /for example/);
    });

    it('plans a git repository: GitHub owner/repo or a clone URL, each environment building its branch', () => {
      const git = {
        ...example(),
        repo: 'acme/site',
        environments: [
          { name: 'Production', branch: 'main' },
          { name: 'Staging', branch: 'develop', wp_environment_name: 'headlesswpe' },
        ],
      };
      const plan = planFromWpeJson(git, BASE_DIR);
      assert.equal(plan.repository, 'https://github.com/acme/site.git');
      assert.deepEqual(
        plan.environments.map((e) => [e.displayName, e.branch, e.zipFilePath]),
        [
          ['Production', 'main', undefined],
          ['Staging', 'develop', undefined],
        ],
      );
      assert.equal(
        planFromWpeJson({ ...git, repo: 'git@gitlab.com:acme/site.git' }, BASE_DIR).repository,
        'git@gitlab.com:acme/site.git',
      );
      assert.equal(planFromWpeJson(example(), BASE_DIR).repository, undefined);
    });

    it('refuses a repo that is no repository, a branch that is no branch and a zip for a git app, naming them', () => {
      assert.deepEqual(fieldsOf({ ...example(), repo: undefined }), ['repo']);
      assert.deepEqual(fieldsOf({ ...example(), repo: 7 }), ['repo']);
      assert.deepEqual(fieldsOf({ ...example(), repo: 'not a repo' }), ['repo']);
      assert.match(
        violationsOf({ ...example(), repo: 'file:///etc/site' })[0]?.description ?? '',
        /not file/,
      );
      const git = { ...example(), repo: 'acme/site' };
      assert.deepEqual(fieldsOf(git), ['environments[0].branch', 'environments[0].zip_file_path']);
      assert.deepEqual(
        fieldsOf({ ...git, environments: [{ name: 'P', branch: '--upload-pack=x' }, { name: 'Q' }] }),
        ['environments[0].branch', 'environments[1].branch'],
      );
      assert.deepEqual(fieldsOf(withEnvironment({ branch: 'main' })), ['environments[0].branch']);
    });

    it('refuses missing, empty and non-array environments', () => {
      for (const environments of [undefined, [], {}, 'Production']) {
        assert.deepEqual(fieldsOf({ ...example(), environments }), ['environments']);
      }
      assert.deepEqual(fieldsOf({ ...example(), environments: [example().environments[0], 'x'] }), [
        'environments[1]',
      ]);
    });

    it('refuses a missing, blank or too long environment name', () => {
      for (const name of [undefined, '', '   ', 'x'.repeat(101), 5]) {
        assert.deepEqual(
          fieldsOf(withEnvironment({ name })),
          ['environments[0].name'],
          `name ${String(name)}`,
        );
      }
      assert.doesNotThrow(() => planFromWpeJson(withEnvironment({ name: 'x'.repeat(100) }), BASE_DIR));
    });

    it('refuses two environments with the same name, ignoring letter case', () => {
      const config = example();
      config.environments.push({ name: 'PRODUCTION', branch: '-' });
      assert.deepEqual(violationsOf(config), [
        {
          field: 'environments[1].name',
          description: 'duplicates environments[0].name: environment names must differ, ignoring letter case',
        },
      ]);
    });

    it('refuses a git branch or a missing branch', () => {
      for (const branch of ['main', 'Uploadable', '', undefined, 1]) {
        assert.deepEqual(
          fieldsOf(withEnvironment({ branch })),
          ['environments[0].branch'],
          `branch ${String(branch)}`,
        );
      }
      assert.match(descriptionOf(withEnvironment({ branch: 'main' }), 'environments[0].branch'), /"-"/);
    });

    it('refuses a wp_environment_name that is not a string or not a host label', () => {
      for (const wp_environment_name of [3, 'Has Spaces', 'UPPER']) {
        assert.deepEqual(fieldsOf(withEnvironment({ wp_environment_name })), [
          'environments[0].wp_environment_name',
        ]);
      }
      assert.equal(
        planFromWpeJson(withEnvironment({ wp_environment_name: '' }), BASE_DIR).environments[0]!
          .wpEnvironment,
        '',
      );
    });

    it('refuses malformed env_variables with paths in the file’s names', () => {
      assert.deepEqual(fieldsOf(withEnvironment({ env_variables: { KEY: 'value' } })), [
        'environments[0].env_variables',
      ]);
      assert.deepEqual(
        fieldsOf(
          withEnvironment({
            env_variables: [
              'KEY=value',
              { key: '', value: 'x' },
              { value: 'x' },
              { key: 'NUMBER', value: 3 },
              { key: 'FLAG', value: 'x', secret: 'yes' },
            ],
          }),
        ),
        [
          'environments[0].env_variables[0]',
          'environments[0].env_variables[1].key',
          'environments[0].env_variables[2].key',
          'environments[0].env_variables[3].value',
          'environments[0].env_variables[4].secret',
        ],
      );
    });

    it('refuses duplicate keys within one environment, at the file’s index', () => {
      const violations = violationsOf(
        withEnvironment({
          env_variables: [
            { key: 'A', value: '1' },
            { key: 42, value: 'skipped' },
            { key: 'A', value: '2' },
          ],
        }),
      );
      assert.deepEqual(
        violations.map((v) => v.field),
        ['environments[0].env_variables[1].key', 'environments[0].env_variables[2].key'],
      );
      assert.match(violations[1]!.description, /duplicates the key A/);
    });

    it('allows the same key in two environments', () => {
      const config = example();
      config.environments.push({
        name: 'Staging',
        branch: '-',
        env_variables: [{ key: 'WORDPRESS_URL', value: 'x' }],
      });
      assert.doesNotThrow(() => planFromWpeJson(config, BASE_DIR));
    });

    it('applies the API’s key rules, so the file cannot fail half-way through', () => {
      assert.deepEqual(
        fieldsOf(
          withEnvironment({
            env_variables: [
              { key: 'my-key', value: 'x' },
              { key: 'PORT', value: '3000' },
            ],
          }),
        ),
        ['environments[0].env_variables[0].key', 'environments[0].env_variables[1].key'],
      );
    });

    it('refuses malformed domains', () => {
      assert.deepEqual(fieldsOf(withEnvironment({ domains: 'yourdomain.com' })), ['environments[0].domains']);
      assert.deepEqual(
        fieldsOf(
          withEnvironment({
            domains: ['ok.example.com', 7, 'https://x.example.com', 'localhost', '*.x.com'],
          }),
        ),
        [
          'environments[0].domains[1]',
          'environments[0].domains[2]',
          'environments[0].domains[3]',
          'environments[0].domains[4]',
        ],
      );
    });

    it('refuses a domain named twice, within or across environments', () => {
      const config = example();
      config.environments[0].domains = ['yourdomain.com', 'www.yourdomain.com', 'YourDomain.com '];
      config.environments.push({ name: 'Staging', branch: '-', domains: ['www.yourdomain.com'] });
      assert.deepEqual(violationsOf(config), [
        {
          field: 'environments[0].domains[2]',
          description: 'duplicates environments[0].domains[0]: a domain maps to one environment',
        },
        {
          field: 'environments[1].domains[0]',
          description: 'duplicates environments[0].domains[1]: a domain maps to one environment',
        },
      ]);
    });

    it('refuses an empty or non-string zip_file_path', () => {
      for (const zip_file_path of ['', '  ', 3, {}]) {
        assert.deepEqual(fieldsOf(withEnvironment({ zip_file_path })), ['environments[0].zip_file_path']);
      }
    });

    it('reports every violation at once, and joins them in the message', () => {
      const parsed = {
        name: 'MyHeadlessApp',
        repo: 'no repository',
        region: 'MARS',
        environments: [
          { name: '', branch: 'main', env_variables: [{ key: '', value: 1 }], domains: ['a.com', 'A.com'] },
          { name: 'Prod', branch: '-', zip_file_path: '' },
          { name: 'prod', branch: '-', domains: ['a.com'] },
        ],
      };
      const fields = [
        'name',
        'repo',
        'region',
        'environments[0].name',
        'environments[0].branch',
        'environments[0].env_variables[0].key',
        'environments[0].env_variables[0].value',
        'environments[0].domains[1]',
        'environments[1].zip_file_path',
        'environments[2].domains[0]',
        'environments[2].name',
      ];
      assert.deepEqual(fieldsOf(parsed), fields);
      assert.throws(
        () => planFromWpeJson(parsed, BASE_DIR),
        (error: unknown) => {
          assert.ok(error instanceof WpeConfigError);
          assert.equal(error.name, 'WpeConfigError');
          assert.equal(error.message, error.violations.map((v) => `${v.field}: ${v.description}`).join('; '));
          assert.ok(error.message.startsWith('name: '));
          for (const field of fields) assert.ok(error.message.includes(`${field}: `), field);
          return true;
        },
      );
    });
  });

  it('lists the fields it ignores, with their paths', () => {
    const config = example();
    config.platform = 'headless';
    config.environments[0].foo = 1;
    config.environments[0].env_variables[0].comment = 'from WP Engine';
    config.environments.push({ name: 'Staging', branch: '-', build_command: 'npm run build' });
    assert.deepEqual(planFromWpeJson(config, BASE_DIR).ignoredFields, [
      'platform',
      'environments[0].foo',
      'environments[0].env_variables[0].comment',
      'environments[1].build_command',
    ]);
  });

  describe('zip_file_path', () => {
    it('resolves a relative path against baseDir', () => {
      for (const [path, expected] of [
        ['./build/site.zip', 'build/site.zip'],
        ['site.zip', 'site.zip'],
        ['../other/site.zip', '../other/site.zip'],
      ] as const) {
        assert.equal(
          planFromWpeJson(withEnvironment({ zip_file_path: path }), BASE_DIR).environments[0]!.zipFilePath,
          resolve(BASE_DIR, expected),
        );
      }
    });

    it('keeps an absolute path', () => {
      const absolute = resolve('/srv/uploads/site.zip');
      assert.equal(
        planFromWpeJson(withEnvironment({ zip_file_path: absolute }), BASE_DIR).environments[0]!.zipFilePath,
        absolute,
      );
    });

    it('resolves a relative baseDir against the working directory', () => {
      assert.equal(
        planFromWpeJson(example(), 'apps/site').environments[0]!.zipFilePath,
        resolve(process.cwd(), 'apps/site/build/site.zip'),
      );
    });
  });
});

describe('suggestAppId', () => {
  it('lower-cases and hyphenates names', () => {
    assert.equal(suggestAppId('MyHeadlessApp'), 'my-headless-app');
    assert.equal(suggestAppId('My HTMLApp'), 'my-html-app');
    assert.equal(suggestAppId('My_App 2'), 'my-app-2');
    assert.equal(suggestAppId('  Café--Site!! '), 'cafe-site');
    assert.equal(suggestAppId('2024 Site'), 'site');
    assert.equal(suggestAppId('A'.repeat(50)), 'a'.repeat(40));
  });

  it('gives nothing when no valid appId can be derived', () => {
    assert.equal(suggestAppId('Ab'), undefined);
    assert.equal(suggestAppId('123'), undefined);
    assert.equal(suggestAppId('!!!'), undefined);
  });
});
