/**
 * Not API: helpers the starter's feature packages share (participant ids, election paths, initiator registration
 * and settings, the failure analyzer). Public only for Java's sake; they may change in any release.
 */
package dev.leasehold.spring.internal;
