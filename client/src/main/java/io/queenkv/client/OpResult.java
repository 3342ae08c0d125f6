package io.queenkv.client;

/** The result of one op of a completed call. */
public sealed interface OpResult permits GetResult, GetManyResult, GetPrefixResult, WriteResult {}
