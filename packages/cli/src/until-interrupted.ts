/** Resolves on the first SIGINT/SIGTERM (how a monitor or the schedule daemon, kept up by the
 * terminal or a service manager, is stopped), and stops listening for them. */
export function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
