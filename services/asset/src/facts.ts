import type { EnvelopeOptions } from '@thumbforge/contracts';

/**
 * Envelope options of a fact decided for a command: its id derives from the command's, so the same
 * command decided twice yields the same fact, and it points back to the command.
 */
export function factOf(commandId: string, suffix: string, correlationId: string, at: Date): EnvelopeOptions {
  return { id: `${commandId}:${suffix}`, causationId: commandId, correlationId, occurredAt: at };
}
