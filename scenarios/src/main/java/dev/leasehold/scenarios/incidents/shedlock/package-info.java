/** {@code run shedlock-overrun}: a ShedLock job paused past its {@code lockAtMostFor}, with and without a fence. */
package dev.leasehold.scenarios.incidents.shedlock;
