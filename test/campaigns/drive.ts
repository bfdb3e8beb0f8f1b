/** Drives dialers by hand (tickMs 0) with a movable clock until a condition holds. */
import type { CampaignDialer } from '../../src/campaigns/dialer.js';
import type { FakeCalls } from './fake_calls.js';

export class TestClock {
  constructor(public now: Date) {}
  read = () => this.now;
  advanceMinutes(m: number) { this.now = new Date(this.now.getTime() + m * 60_000); }
}

/** Rounds of: every dialer ticks (concurrently), calls settle; a round that dispatches nothing moves the clock. */
export async function drive(dialers: CampaignDialer[], fake: FakeCalls, clock: TestClock, done: () => Promise<boolean>, opts: { stepMinutes?: number; maxRounds?: number } = {}) {
  for (let i = 0; i < (opts.maxRounds ?? 400); i++) {
    const before = fake.dispatched.length;
    await Promise.all(dialers.map((d) => d.kick()));
    await fake.settle();
    await Promise.all(dialers.map((d) => d.kick()));
    if (await done()) return i;
    if (fake.dispatched.length === before) clock.advanceMinutes(opts.stepMinutes ?? 11);
  }
  throw new Error('dialers did not finish');
}
