import { Events, NatsConnection } from 'nats';

/**
 * Whether the NATS connection is up right now, from the client's status events: `disconnect`
 * (the socket closed; the client keeps reconnecting) until `reconnect`. Requests check it to
 * fail at once while the bus is known to be down, instead of waiting for their timeout.
 */
export class ConnectionWatch {
  private up = true;
  private readonly reconnectListeners: (() => void)[] = [];

  constructor(nc: NatsConnection) {
    void this.watch(nc);
  }

  get connected(): boolean {
    return this.up;
  }

  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === Events.Disconnect) {
        this.up = false;
      } else if (status.type === Events.Reconnect) {
        this.up = true;
        for (const listener of this.reconnectListeners) listener();
      }
    }
  }
}
