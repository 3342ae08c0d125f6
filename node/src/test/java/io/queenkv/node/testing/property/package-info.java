/**
 * Seeded property testing for step sequences, in plain JUnit 5 and the JDK.
 *
 * <p>A test describes its steps as typed values (records), builds a {@link io.queenkv.node.testing.property.Gen}
 * of step lists from a few combinators, and calls
 * {@link io.queenkv.node.testing.property.PropertyRunner#assertHolds} with a
 * {@link io.queenkv.node.testing.property.Property} that runs the steps against fresh state and
 * throws when something disagrees. Each try draws its sequence from a {@link java.util.SplittableRandom}
 * seeded with that try's seed; a failing sequence is minimised by dropping steps
 * ({@link io.queenkv.node.testing.property.Minimiser}), and the assertion error reports {@code seed=…}
 * and the minimised steps, one a line.
 *
 * <pre>
 * # replay the seed a report named (one try, minimised again the same way)
 * mvn -B -o -q -pl node test -Dtest=ReferenceModelPropertyTest -Dqueenkv.property.seed=-4711
 * # a longer run
 * mvn -B -o -q -pl node test -Dtest=ReferenceModelPropertyTest -Dqueenkv.property.tries=20000
 * </pre>
 *
 * <p>Nothing here knows the KV engine: the same runner drives any sequence of steps.
 */
package io.queenkv.node.testing.property;
