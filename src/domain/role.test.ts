import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ROLES, isRole, permissionTable, roleAllows, type Action } from './role.js';

const ALL_ACTIONS: readonly Action[] = [
  'account.read',
  'app.read',
  'app.create',
  'app.delete',
  'repository.manage',
  'repository.trust',
  'environment.read',
  'environment.write',
  'environment.delete',
  'member.read',
  'member.write',
  'webhook.manage',
  'events.manage',
  'report.read',
  'report.manage',
];

describe('roles', () => {
  it('are owner, developer and viewer', () => {
    assert.deepEqual([...ROLES], ['owner', 'developer', 'viewer']);
  });

  it('isRole accepts exactly the three roles', () => {
    for (const role of ROLES) assert.equal(isRole(role), true);
    for (const value of ['', 'admin', 'Owner', 'VIEWER', 'owner ']) assert.equal(isRole(value), false, value);
  });

  it('lets viewers read and nothing else', () => {
    const allowed = ALL_ACTIONS.filter((a) => roleAllows('viewer', a));
    assert.deepEqual(allowed, ['account.read', 'app.read', 'environment.read', 'report.read']);
  });

  it('lets developers change apps, environments and report schedules but not delete apps or touch members and webhooks', () => {
    const allowed = ALL_ACTIONS.filter((a) => roleAllows('developer', a));
    assert.deepEqual(allowed, [
      'account.read',
      'app.read',
      'app.create',
      'repository.manage',
      'environment.read',
      'environment.write',
      'environment.delete',
      'report.read',
      'report.manage',
    ]);
    for (const action of [
      'app.delete',
      'member.read',
      'member.write',
      'webhook.manage',
      'events.manage',
    ] as const) {
      assert.equal(roleAllows('developer', action), false, action);
    }
  });

  it('lets owners do everything', () => {
    for (const action of ALL_ACTIONS) assert.equal(roleAllows('owner', action), true, action);
  });

  it('permissionTable lists every action once and agrees with roleAllows', () => {
    const table = permissionTable();
    assert.deepEqual(
      table.map((row) => row.action),
      ALL_ACTIONS,
    );
    for (const row of table) {
      for (const role of ROLES) {
        assert.equal(row.roles.includes(role), roleAllows(role, row.action), `${role} ${row.action}`);
      }
    }
  });
});
