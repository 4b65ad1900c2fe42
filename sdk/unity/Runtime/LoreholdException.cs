using System;

namespace Lorehold
{
    /// <summary>The interface spec's client-side SDK codes.</summary>
    public static class LoreholdErrorCode
    {
        /// <summary>No HTTP status: the client is set up wrong (no base URL, no key, a bad option).</summary>
        public const string ConfigError = "CONFIG_ERROR";
        public const string ValidationError = "VALIDATION_ERROR"; // 400
        public const string AuthFailed = "AUTH_FAILED"; // 401
        public const string InsufficientCredits = "INSUFFICIENT_CREDITS"; // 402
        public const string RateLimited = "RATE_LIMITED"; // 429, after the bounded retries
        public const string ServiceUnavailable = "SERVICE_UNAVAILABLE"; // 503
        public const string RequestFailed = "REQUEST_FAILED"; // any other HTTP error
        /// <summary>No HTTP status: network failure, timeout, cancellation, a stream cut short.</summary>
        public const string TransportError = "TRANSPORT_ERROR";

        public static string ForStatus(int status)
        {
            switch (status)
            {
                case 400: return ValidationError;
                case 401: return AuthFailed;
                case 402: return InsufficientCredits;
                case 429: return RateLimited;
                case 503: return ServiceUnavailable;
                default: return RequestFailed;
            }
        }
    }

    /// <summary>Every failure of the client. Never carries the API key.</summary>
    public class LoreholdException : Exception
    {
        /// <summary>One of LoreholdErrorCode's values.</summary>
        public string Code { get; private set; }
        /// <summary>HTTP status, when there was a response.</summary>
        public int? Status { get; private set; }
        /// <summary>The server's exact `error` string, when it sent one.</summary>
        public string ServerError { get; private set; }
        /// <summary>Seconds to wait (RATE_LIMITED).</summary>
        public int? RetryAfter { get; private set; }
        /// <summary>The raw error body.</summary>
        public string Body { get; private set; }
        /// <summary>TRANSPORT_ERROR: "timeout" or "cancelled" when that is why.</summary>
        public string Aborted { get; private set; }

        public LoreholdException(string code, string message, int? status = null, string serverError = null, int? retryAfter = null, string body = null, string aborted = null, Exception inner = null)
            : base(message, inner)
        {
            Code = code;
            Status = status;
            ServerError = serverError;
            RetryAfter = retryAfter;
            Body = body;
            Aborted = aborted;
        }
    }
}
