import { BacklogGate } from './backlog-gate';

describe(BacklogGate.name, () => {
  it('starts closed: nothing tells a replica yet what it did not hear before it subscribed', () => {
    expect(new BacklogGate().open).toBe(false);
  });

  it('opens at the first reading when the consumer has acknowledged everything published', () => {
    const gate = new BacklogGate();
    expect(gate.observe({ published: 0, acknowledged: 0 }, gate.epoch)).toBe(true);
    const busy = new BacklogGate();
    expect(busy.observe({ published: 42, acknowledged: 42 }, busy.epoch)).toBe(true);
  });

  it('waits for the consumer to pass what was published at the first reading, not what is published later (that is heard)', () => {
    const gate = new BacklogGate();
    expect(gate.observe({ published: 500, acknowledged: 20 }, gate.epoch)).toBe(false);
    expect(gate.waitingFor).toBe(500);
    expect(gate.observe({ published: 900, acknowledged: 499 }, gate.epoch)).toBe(false);
    expect(gate.waitingFor).toBe(500);
    expect(gate.observe({ published: 1000, acknowledged: 500 }, gate.epoch)).toBe(true);
    expect(gate.open).toBe(true);
    // Once open, readings change nothing.
    expect(gate.observe({ published: 2000, acknowledged: 3 }, gate.epoch)).toBe(true);
  });

  it('closes on a reconnect, and the next reading fixes a new barrier', () => {
    const gate = new BacklogGate();
    gate.observe({ published: 10, acknowledged: 10 }, gate.epoch);
    gate.close();
    expect(gate.open).toBe(false);
    expect(gate.waitingFor).toBeUndefined();
    expect(gate.observe({ published: 30, acknowledged: 12 }, gate.epoch)).toBe(false);
    expect(gate.waitingFor).toBe(30);
    expect(gate.observe({ published: 31, acknowledged: 30 }, gate.epoch)).toBe(true);
  });

  it('ignores a reading taken before the last closing (it cannot know what was missed since)', () => {
    const gate = new BacklogGate();
    const before = gate.epoch;
    gate.close();
    expect(gate.observe({ published: 5, acknowledged: 5 }, before)).toBe(false);
    expect(gate.waitingFor).toBeUndefined();
    expect(gate.observe({ published: 8, acknowledged: 8 }, gate.epoch)).toBe(true);
  });
});
