/**
 * The build uid range of this test run, when the runner's environment names one: two test runs on one machine
 * (two clones) must not hand the same uid to two sandboxes, whose per-uid process limits would then trip each other.
 */
export function testRunUidRange(): Record<string, string> {
  const range = process.env.ATOLL_BUILD_UID_RANGE;
  return range === undefined ? {} : { ATOLL_BUILD_UID_RANGE: range };
}
