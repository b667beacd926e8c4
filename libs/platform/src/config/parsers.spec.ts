import { ConfigError } from './config-error';
import {
  parseBoolean,
  parseDayThresholds,
  parseDuration,
  parseEnum,
  parseInteger,
  parseList,
} from './parsers';

describe(parseDuration.name, () => {
  it.each([
    ['500ms', 500],
    ['0ms', 0],
    ['30s', 30_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1m30s', 90_000],
    ['2s500ms', 2_500],
    ['1h1m1s1ms', 3_661_001],
    [' 5s ', 5_000],
  ])('reads %j as %d milliseconds', (raw, expected) => {
    expect(parseDuration('SERVICE_BUS_REQUEST_TIMEOUT', raw)).toBe(expected);
  });

  it.each(['', '   ', '5', '5 s', '5S', '1.5s', '-5s', '5s5', 's', '5d', '1h 30m', 'ms', '5sec'])(
    'refuses %j with a message naming the variable and quoting the value',
    (raw) => {
      expect(() => parseDuration('SERVICE_BUS_REQUEST_TIMEOUT', raw)).toThrow(ConfigError);
      expect(() => parseDuration('SERVICE_BUS_REQUEST_TIMEOUT', raw)).toThrow(
        `SERVICE_BUS_REQUEST_TIMEOUT=${JSON.stringify(raw)} is not a duration`,
      );
    },
  );
});

describe(parseBoolean.name, () => {
  it.each(['true', 'TRUE', ' True ', '1', 'yes', 'on'])('reads %j as true', (raw) => {
    expect(parseBoolean('SERVICE_DEMO_SEED', raw)).toBe(true);
  });

  it.each(['false', 'FALSE', '0', 'no', 'off', '', '  '])('reads %j as false', (raw) => {
    expect(parseBoolean('SERVICE_DEMO_SEED', raw)).toBe(false);
  });

  it.each(['t', 'y', '2', 'enabled', 'truee', 'null'])('refuses %j', (raw) => {
    expect(() => parseBoolean('SERVICE_DEMO_SEED', raw)).toThrow(ConfigError);
    expect(() => parseBoolean('SERVICE_DEMO_SEED', raw)).toThrow(
      `SERVICE_DEMO_SEED=${JSON.stringify(raw)} is not a boolean: use true or false`,
    );
  });
});

describe(parseInteger.name, () => {
  it.each([
    ['1', 1],
    ['65535', 65535],
    [' 8443 ', 8443],
    ['008443', 8443],
  ])('reads %j as %d', (raw, expected) => {
    expect(parseInteger('SERVICE_PORT', raw, 1, 65535)).toBe(expected);
  });

  it('accepts both bounds and negative values when the range allows them', () => {
    expect(parseInteger('X', '-5', -5, 5)).toBe(-5);
    expect(parseInteger('X', '5', -5, 5)).toBe(5);
  });

  it.each([
    '0',
    '65536',
    '-1',
    '',
    ' ',
    '1.0',
    '1e3',
    '0x10',
    '+5',
    '5a',
    'NaN',
    'Infinity',
    '99999999999999999999',
  ])('refuses %j with the allowed range in the message', (raw) => {
    expect(() => parseInteger('SERVICE_PORT', raw, 1, 65535)).toThrow(ConfigError);
    expect(() => parseInteger('SERVICE_PORT', raw, 1, 65535)).toThrow(
      `SERVICE_PORT=${JSON.stringify(raw)} must be an integer between 1 and 65535`,
    );
  });
});

describe(parseList.name, () => {
  it('splits on commas, trims and drops empty entries', () => {
    expect(parseList(' a , b,,c , ')).toEqual(['a', 'b', 'c']);
    expect(parseList('')).toEqual([]);
  });
});

describe(parseDayThresholds.name, () => {
  const parse = (raw: string) => parseDayThresholds('SERVICE_CA_EXPIRY_ALERT_DAYS', raw, 3650);

  it('returns distinct whole days from the farthest to the nearest', () => {
    expect(parse(' 7, 180 ,30,1,90')).toEqual([180, 90, 30, 7, 1]);
    expect(parse('3650')).toEqual([3650]);
  });

  it.each(['', ',', '30,30', '0,30', '3651', '30.5', '-7', '30d', '1e2'])('refuses %j', (raw) => {
    expect(() => parse(raw)).toThrow(
      `SERVICE_CA_EXPIRY_ALERT_DAYS=${JSON.stringify(raw)} must be a comma-separated list of distinct whole days between 1 and 3650`,
    );
  });
});

describe(parseEnum.name, () => {
  const levels = ['info', 'warn'] as const;

  it('is case-insensitive and trims', () => {
    expect(parseEnum('SERVICE_LOG_LEVEL', ' WARN ', levels)).toBe('warn');
  });

  it('refuses other values and lists the allowed ones', () => {
    expect(() => parseEnum('SERVICE_LOG_LEVEL', 'loud', levels)).toThrow(
      'SERVICE_LOG_LEVEL="loud" is not valid: use one of info, warn',
    );
  });
});
