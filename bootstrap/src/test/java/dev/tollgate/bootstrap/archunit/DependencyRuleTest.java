package dev.tollgate.bootstrap.archunit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noFields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.List;

/** The hexagon's dependency rules: a wrong dependency fails the build. */
@AnalyzeClasses(packages = "dev.tollgate",
        importOptions = {ImportOption.DoNotIncludeTests.class, DependencyRuleTest.ProductionJarsOnly.class})
class DependencyRuleTest {

    /** Test fixtures published as test-jars (in-memory fakes, contract tests) are not production code. */
    static final class ProductionJarsOnly implements ImportOption {
        @Override
        public boolean includes(com.tngtech.archunit.core.importer.Location location) {
            return !location.contains("-tests.jar");
        }
    }

    private static final List<Class<?>> FLOATING_POINT = List.of(double.class, float.class, Double.class, Float.class);

    @ArchTest
    static final ArchRule the_hexagon_points_inwards = layeredArchitecture()
            .consideringOnlyDependenciesInAnyPackage("dev.tollgate..")
            .layer("Domain").definedBy("dev.tollgate.domain..")
            .layer("Application").definedBy("dev.tollgate.application..")
            .layer("HTTP adapter").definedBy("dev.tollgate.adapter.in.http..")
            .layer("Persistence adapter").definedBy("dev.tollgate.adapter.out.persistence..")
            .layer("Upstream adapter").definedBy("dev.tollgate.adapter.out.upstream..")
            .layer("Bootstrap").definedBy("dev.tollgate.bootstrap..")
            .whereLayer("Bootstrap").mayNotBeAccessedByAnyLayer()
            .whereLayer("HTTP adapter").mayOnlyBeAccessedByLayers("Bootstrap")
            .whereLayer("Persistence adapter").mayOnlyBeAccessedByLayers("Bootstrap")
            .whereLayer("Upstream adapter").mayOnlyBeAccessedByLayers("Bootstrap")
            .whereLayer("Application").mayOnlyBeAccessedByLayers("HTTP adapter", "Persistence adapter",
                    "Upstream adapter", "Bootstrap")
            .whereLayer("Domain").mayOnlyBeAccessedByLayers("Application", "HTTP adapter", "Persistence adapter",
                    "Upstream adapter", "Bootstrap")
            .because("the core knows no adapter, adapters know only the core, and only bootstrap wires them");

    @ArchTest
    static final ArchRule the_domain_is_pure_java = classes().that().resideInAPackage("dev.tollgate.domain..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("dev.tollgate.domain..", "java.lang..",
                    "java.util..", "java.time..", "java.math..", "java.nio.charset..", "java.security..", "java.text..",
                    "javax.crypto..")
            .because("the domain holds the key, spend-limit and quota rules in plain Java (house-style.md)");

    @ArchTest
    static final ArchRule the_application_knows_no_framework = classes().that()
            .resideInAPackage("dev.tollgate.application..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("dev.tollgate.domain..",
                    "dev.tollgate.application..", "java.lang..", "java.util..", "java.time..", "java.math..")
            .because("ports and use cases carry no Micronaut, jakarta, Jackson, resilience4j or java.sql");

    @ArchTest
    static final ArchRule adapters_use_ports_not_services = noClasses().that()
            .resideInAPackage("dev.tollgate.adapter..")
            .should().dependOnClassesThat().resideInAPackage("dev.tollgate.application.service..")
            .because("adapters talk to the core only through its ports; services are wired by bootstrap");

    @ArchTest
    static final ArchRule adapters_do_not_know_each_other = slices()
            .matching("dev.tollgate.adapter.(*).(*)..")
            .should().notDependOnEachOther()
            .because("each adapter is replaceable on its own");

    @ArchTest
    static final ArchRule core_contexts_are_free_of_cycles = slices()
            .matching("dev.tollgate.(domain|application.port.in|application.service).(*)..")
            .should().beFreeOfCycles()
            .because("contexts that depend on each other in circles cannot be understood or moved apart");

    @ArchTest
    static final ArchRule money_has_no_floating_point_fields = noFields().that()
            .areDeclaredInClassesThat().resideInAnyPackage("dev.tollgate.domain..", "dev.tollgate.application..")
            .should().haveRawType(double.class).orShould().haveRawType(float.class)
            .orShould().haveRawType(Double.class).orShould().haveRawType(Float.class)
            .because("money, prices and limits are integers end to end (reliability goal G4)");

    private static final ArchCondition<JavaMethod> NOT_USE_FLOATING_POINT =
            new ArchCondition<>("not take or return float or double") {
                @Override
                public void check(JavaMethod method, ConditionEvents events) {
                    if (usesFloatingPoint(method)) {
                        events.add(SimpleConditionEvent.violated(method,
                                method.getFullName() + " takes or returns floating point"));
                    }
                }
            };

    @ArchTest
    static final ArchRule money_has_no_floating_point_signatures = methods().that()
            .areDeclaredInClassesThat().resideInAnyPackage("dev.tollgate.domain..", "dev.tollgate.application..")
            .should(NOT_USE_FLOATING_POINT)
            .because("a double anywhere in billing or limits loses micro-dollars (reliability goal G4)");

    private static boolean usesFloatingPoint(JavaMethod method) {
        if (isFloating(method.getRawReturnType())) {
            return true;
        }
        return method.getRawParameterTypes().stream().anyMatch(DependencyRuleTest::isFloating);
    }

    private static boolean isFloating(JavaClass type) {
        return FLOATING_POINT.stream().anyMatch(type::isEquivalentTo);
    }
}
