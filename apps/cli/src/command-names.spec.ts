import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { OPERATIONS, OperationId } from '@certlane/api-client';
import { loadApiDescription } from './api-description';
import { CliIo } from './cli-io';
import { commandNames, verbOf } from './command-names';
import { OPERATION_OF } from './completion';
import { buildProgram } from './program';

const io = (): CliIo => ({
  stdout: new PassThrough(),
  stderr: new PassThrough() as unknown as CliIo['stderr'],
  stdin: new PassThrough(),
  env: {},
});

function everyCommand(root: Command): Command[] {
  return root.commands.flatMap((child) => [child, ...everyCommand(child)]);
}

describe('the CLI command tree (issue 17: every API operation is reachable)', () => {
  const program = buildProgram(io(), loadApiDescription());
  const reachable = new Set(everyCommand(program).flatMap((command) => OPERATION_OF.get(command) ?? []));

  it('has a command for every operation of the API description', () => {
    const missing = (Object.keys(OPERATIONS) as OperationId[]).filter(
      (id) => !reachable.has(id) && id !== 'exportCertificatePkcs12',
    );
    expect(missing).toEqual([]);
    // The PKCS#12 export is the `--p12` switch of `certs export`, beside `--pem`.
    const exportCommand = everyCommand(program).find(
      (command) => OPERATION_OF.get(command) === 'exportCertificatePem',
    );
    expect(exportCommand?.options.map((option) => option.long)).toEqual(
      expect.arrayContaining(['--pem', '--p12']),
    );
  });

  it('names every operation once, with no two operations on one command line', () => {
    const lines = commandNames().map((name) => name.words.join(' '));
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines.length).toBe(Object.keys(OPERATIONS).length);
  });

  it('has the kubectl-style verbs the issue names', () => {
    const lines = new Set(commandNames().map((name) => name.words.join(' ')));
    for (const verb of ['list', 'get', 'create', 'update', 'delete', 'versions', 'renew', 'deploy', 'revoke'])
      expect(lines).toContain(`certs ${verb}`);
    for (const line of [
      'agents retire',
      'jobs cancel',
      'bulk revoke',
      'bulk renew',
      'bulk reassign',
      'version',
    ])
      expect(lines).toContain(line);
    for (const line of [
      'acme orders list',
      'acme orders get',
      'acme validation-attempts list',
      'acme certificates renew-early',
      'acme certificates bulk-renew-early',
    ])
      expect(lines).toContain(line);
    for (const group of ['keys', 'roles', 'grants', 'sessions', 'users', 'break-glass', 'bootstrap'])
      expect([...lines].some((line) => line.startsWith(`auth ${group} `))).toBe(true);
  });

  it.each([
    ['scepCreateProfile', 'scep profiles create'],
    ['scepUpdateProfile', 'scep profiles update'],
  ] as const)(
    '%s (%s) sets the soft-fail or hard-fail of unknown client certificate revocation',
    (id, line) => {
      const command = everyCommand(program).find((candidate) => OPERATION_OF.get(candidate) === id);
      expect(
        commandNames()
          .find((name) => name.operationId === id)
          ?.words.join(' '),
      ).toBe(line);
      const option = command?.options.find((candidate) => candidate.long === '--client-revocation-unknown');
      expect(option?.argChoices).toEqual(['soft-fail', 'hard-fail']);
    },
  );

  // Spec 4.9: admin routes take only GET and POST, so update, delete and revoke are POSTs on the resource.
  it.each([
    ['estUpdateProfile', 'est profiles update'],
    ['estDeleteProfile', 'est profiles delete'],
    ['estRevokeKeyEncryptionKey', 'est key-encryption-keys revoke'],
    ['acmeUpdateProfile', 'acme profiles update'],
    ['acmeDeleteProfile', 'acme profiles delete'],
    ['acmeRevokeEabKey', 'acme eab-keys revoke'],
    ['scepUpdateProfile', 'scep profiles update'],
    ['scepDeleteProfile', 'scep profiles delete'],
  ] as const)('names the admin operation %s "%s"', (id, line) => {
    expect(OPERATIONS[id].method).toBe('POST');
    expect(
      commandNames()
        .find((name) => name.operationId === id)
        ?.words.join(' '),
    ).toBe(line);
  });

  it.each([
    ['listThings', 'GET', '/api/v1/things', ['things'], 'list'],
    ['getThing', 'GET', '/api/v1/things/{id}', ['things'], 'get'],
    ['createThing', 'POST', '/api/v1/things', ['things'], 'create'],
    ['updateThing', 'PUT', '/api/v1/things/{id}', ['things'], 'update'],
    ['deleteThing', 'DELETE', '/api/v1/things/{id}', ['things'], 'delete'],
    ['retireThing', 'DELETE', '/api/v1/things/{id}', ['things'], 'retire'],
    ['getThingHistory', 'GET', '/api/v1/things/{id}/history', ['things'], 'history'],
    ['rotateApiKey', 'POST', '/api/v1/auth/api-keys/{id}/rotate', ['auth', 'api-keys'], 'rotate'],
    ['deletePolicy', 'DELETE', '/api/v1/policies/{id}', ['policies'], 'delete'],
    ['estListProfiles', 'GET', '/api/v1/admin/est/profiles', ['est', 'profiles'], 'list'],
    ['estUpdateProfile', 'POST', '/api/v1/admin/est/profiles/{id}', ['est', 'profiles'], 'update'],
    ['estDeleteProfile', 'POST', '/api/v1/admin/est/profiles/{id}/delete', ['est', 'profiles'], 'delete'],
    [
      'estRevokeKeyEncryptionKey',
      'POST',
      '/api/v1/admin/est/key-encryption-keys/{id}/revoke',
      ['est', 'key-encryption-keys'],
      'revoke',
    ],
    ['acmeRevokeEabKey', 'POST', '/api/v1/admin/acme/eab-keys/{id}/revoke', ['acme', 'eab-keys'], 'revoke'],
    ['estReloadTrust', 'POST', '/api/v1/admin/est/reload-trust', ['est'], 'reload-trust'],
  ])('derives a new operation %s (%s %s) as "%s %s"', (id, method, path, place, verb) => {
    expect(verbOf(id, method, path, place)).toBe(verb);
  });
});
