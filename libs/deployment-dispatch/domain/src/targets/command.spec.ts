import { commandArgv, commandProblem, MAX_COMMAND_LENGTH, SHELL_METACHARACTERS } from './command';

describe(commandProblem.name, () => {
  it('accepts plain commands with options and absolute paths', () => {
    for (const command of [
      'nginx -t',
      '/usr/sbin/nginx -s reload',
      'systemctl reload haproxy.service',
      'apachectl -k graceful',
      'postfix reload',
      '/opt/bin/check-cert --file=/etc/ssl/a.pem --min-days=7',
      'doveadm reload',
      'keytool -list -keystore /etc/app/keystore.p12',
      'user@host:port,x+y=z%',
    ]) {
      expect([command, commandProblem(command)]).toEqual([command, null]);
    }
  });

  it('lists every refused metacharacter', () => {
    expect([...SHELL_METACHARACTERS]).toEqual([
      ';',
      '&',
      '|',
      '`',
      '$',
      '(',
      ')',
      '<',
      '>',
      '\n',
      '\r',
      '\t',
      "'",
      '"',
      '\\',
      '*',
      '?',
      '[',
      ']',
      '{',
      '}',
      '~',
      '#',
      '!',
      '^',
    ]);
  });

  it.each(SHELL_METACHARACTERS.map((c) => [JSON.stringify(c), c]))(
    'refuses %s anywhere in a command',
    (_name, c) => {
      expect(commandProblem(`nginx${c}-t`)).toBe('metacharacter');
      expect(commandProblem(`${c}nginx -t`)).toBe('metacharacter');
      expect(commandProblem(`nginx -t ${c}`)).toBe('metacharacter');
    },
  );

  it.each([
    'nginx -t; rm -rf /',
    'nginx -t && reboot',
    'nginx -t || true',
    'echo $(id)',
    'echo `id`',
    'cat /etc/shadow > /tmp/x',
    'nginx < /dev/null',
    'nginx -t\nreboot',
    'echo ${HOME}',
    "sh -c 'id'",
    'ls *.pem',
    'rm ~/x',
    'a & b',
  ])('refuses the injection %j', (command) => {
    expect(commandProblem(command)).toBe('metacharacter');
  });

  it('refuses NUL and other control characters, empty and overlong commands', () => {
    expect(commandProblem('nginx\u0000-t')).toBe('control_character');
    expect(commandProblem('nginx\u001bx')).toBe('control_character');
    expect(commandProblem('nginx\u007f')).toBe('control_character');
    expect(commandProblem('')).toBe('empty');
    expect(commandProblem('   ')).toBe('empty');
    expect(commandProblem(`a${' b'.repeat(MAX_COMMAND_LENGTH)}`)).toBe('too_long');
  });
});

describe(commandArgv.name, () => {
  it('splits on runs of spaces, never through a shell', () => {
    expect(commandArgv('  /usr/sbin/nginx   -s reload ')).toEqual(['/usr/sbin/nginx', '-s', 'reload']);
  });

  it('throws for a refused command without echoing it', () => {
    expect(() => commandArgv('nginx; SECRET')).toThrow('command refused (metacharacter)');
    expect(() => commandArgv('nginx; SECRET')).not.toThrow(/SECRET/);
  });
});
