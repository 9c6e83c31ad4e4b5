import { type Client, checkOut, type Pool } from './db.js';

/** The longest wait between two tries to get a listening connection back. */
const MAX_RETRY_MS = 5_000;

/**
 * LISTENs on `channel` on a connection of its own, for as long as it is not stopped. The server
 * may end that connection (a restart, a dropped network, `pg_terminate_backend`): then the
 * client is given back as broken, a new one is checked out (tried again, waiting up to 5 s
 * between tries, until it works or `stop`), LISTEN runs on it, and `onResume` is called, for
 * the caller to catch up on what was notified meanwhile. A first LISTEN that fails gives its
 * client back and throws (a held client would keep `pool.end()` waiting).
 */
export async function listenLasting(
  pool: Pool,
  channel: string,
  onMessage: (payload: string | undefined) => void,
  onResume: () => void,
): Promise<{ stop(): Promise<void> }> {
  type Held = Awaited<ReturnType<typeof checkOut>> & { detach(): void };
  let current: Held | undefined;
  let stopped = false;
  let reconnecting: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  const onNotification = (message: { channel: string; payload?: string }) => {
    if (message.channel === channel) onMessage(message.payload);
  };
  const listen = async (): Promise<Held> => {
    const out = await checkOut(pool);
    const client: Client = out.client;
    client.on('notification', onNotification);
    try {
      await client.query(`listen ${channel}`);
    } catch (error) {
      client.off('notification', onNotification);
      out.release(true);
      throw error;
    }
    const detach = () => {
      client.off('notification', onNotification);
      client.off('error', lost);
      client.off('end', lost);
    };
    const held: Held = { ...out, detach };
    const lost = () => {
      detach();
      if (current !== held) return;
      current = undefined;
      held.release(true);
      // Nobody awaits this but `stop`: a throwing `onResume` must not become an unhandled
      // rejection (which ends the process).
      if (!stopped)
        reconnecting ??= reconnect()
          .catch(() => undefined)
          .finally(() => (reconnecting = undefined));
    };
    client.on('error', lost);
    client.on('end', lost);
    return held;
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const reconnect = async () => {
    // A closed store's pool takes no new client: nothing to listen on any more.
    for (let delay = 50; !stopped && !pool.ending; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
      let held: Held;
      try {
        held = await listen();
      } catch {
        await pause(delay);
        continue;
      }
      if (stopped) {
        held.detach();
        held.release(true);
        return;
      }
      current = held;
      // Outside the retry: a failing callback must not make a second connection.
      onResume();
      return;
    }
  };

  current = await listen();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await reconnecting;
      const held = current;
      current = undefined;
      if (!held) return;
      held.detach();
      await held.client.query(`unlisten ${channel}`).catch(() => undefined);
      held.release();
    },
  };
}
