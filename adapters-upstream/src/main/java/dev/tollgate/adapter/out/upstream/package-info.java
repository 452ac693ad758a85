/**
 * Upstream model providers (OpenAI-compatible, Anthropic, simulator), one sub-package each. The module exists so
 * the dependency rules hold from the start; its providers arrive with the data plane (issue "Data plane").
 */
package dev.tollgate.adapter.out.upstream;
