using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Lorehold
{
    /// <summary>
    /// A small JSON reader and writer, so the client has no dependency (Unity's JsonUtility cannot read
    /// dictionaries or nulls). Objects read as Dictionary&lt;string, object&gt;, arrays as List&lt;object&gt;,
    /// numbers as double, and null, true, false as themselves.
    /// </summary>
    public static class MiniJson
    {
        public static object Parse(string json)
        {
            if (json == null) throw new FormatException("JSON text is null");
            var p = new Parser(json);
            p.SkipWhitespace();
            var value = p.ReadValue(0);
            p.SkipWhitespace();
            if (!p.AtEnd) throw new FormatException("unexpected text after the JSON value at " + p.Position);
            return value;
        }

        public static string Serialize(object value)
        {
            var sb = new StringBuilder();
            Write(sb, value);
            return sb.ToString();
        }

        static void Write(StringBuilder sb, object v)
        {
            if (v == null) { sb.Append("null"); return; }
            var s = v as string;
            if (s != null) { WriteString(sb, s); return; }
            if (v is bool) { sb.Append((bool)v ? "true" : "false"); return; }
            if (v is int || v is long || v is double || v is float || v is decimal)
            {
                sb.Append(Convert.ToString(v, CultureInfo.InvariantCulture));
                return;
            }
            var dict = v as IDictionary;
            if (dict != null)
            {
                sb.Append('{');
                var first = true;
                foreach (DictionaryEntry e in dict)
                {
                    if (e.Value == null) continue; // absent, not null: the server's bodies are strict
                    if (!first) sb.Append(',');
                    first = false;
                    WriteString(sb, Convert.ToString(e.Key, CultureInfo.InvariantCulture));
                    sb.Append(':');
                    Write(sb, e.Value);
                }
                sb.Append('}');
                return;
            }
            var list = v as IEnumerable;
            if (list != null)
            {
                sb.Append('[');
                var first = true;
                foreach (var item in list)
                {
                    if (!first) sb.Append(',');
                    first = false;
                    Write(sb, item);
                }
                sb.Append(']');
                return;
            }
            throw new ArgumentException("cannot write " + v.GetType().Name + " as JSON");
        }

        static void WriteString(StringBuilder sb, string s)
        {
            sb.Append('"');
            foreach (var c in s)
            {
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    case '\b': sb.Append("\\b"); break;
                    case '\f': sb.Append("\\f"); break;
                    default:
                        if (c < 0x20) sb.Append("\\u").Append(((int)c).ToString("x4"));
                        else sb.Append(c);
                        break;
                }
            }
            sb.Append('"');
        }

        sealed class Parser
        {
            readonly string s;
            int i;
            public Parser(string s) { this.s = s; }
            public bool AtEnd { get { return i >= s.Length; } }
            public int Position { get { return i; } }

            public void SkipWhitespace()
            {
                while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
            }

            public object ReadValue(int depth)
            {
                if (depth > 64) throw new FormatException("JSON nested too deeply");
                if (AtEnd) throw new FormatException("unexpected end of JSON");
                var c = s[i];
                if (c == '{') return ReadObject(depth);
                if (c == '[') return ReadArray(depth);
                if (c == '"') return ReadString();
                if (Literal("true")) return true;
                if (Literal("false")) return false;
                if (Literal("null")) return null;
                return ReadNumber();
            }

            bool Literal(string word)
            {
                if (string.CompareOrdinal(s, i, word, 0, word.Length) != 0) return false;
                i += word.Length;
                return true;
            }

            Dictionary<string, object> ReadObject(int depth)
            {
                var d = new Dictionary<string, object>();
                i++;
                SkipWhitespace();
                if (!AtEnd && s[i] == '}') { i++; return d; }
                while (true)
                {
                    SkipWhitespace();
                    if (AtEnd || s[i] != '"') throw new FormatException("expected a property name at " + i);
                    var key = ReadString();
                    SkipWhitespace();
                    if (AtEnd || s[i] != ':') throw new FormatException("expected ':' at " + i);
                    i++;
                    SkipWhitespace();
                    d[key] = ReadValue(depth + 1);
                    SkipWhitespace();
                    if (AtEnd) throw new FormatException("unexpected end of JSON in an object");
                    if (s[i] == ',') { i++; continue; }
                    if (s[i] == '}') { i++; return d; }
                    throw new FormatException("expected ',' or '}' at " + i);
                }
            }

            List<object> ReadArray(int depth)
            {
                var l = new List<object>();
                i++;
                SkipWhitespace();
                if (!AtEnd && s[i] == ']') { i++; return l; }
                while (true)
                {
                    SkipWhitespace();
                    l.Add(ReadValue(depth + 1));
                    SkipWhitespace();
                    if (AtEnd) throw new FormatException("unexpected end of JSON in an array");
                    if (s[i] == ',') { i++; continue; }
                    if (s[i] == ']') { i++; return l; }
                    throw new FormatException("expected ',' or ']' at " + i);
                }
            }

            string ReadString()
            {
                var sb = new StringBuilder();
                i++;
                while (true)
                {
                    if (AtEnd) throw new FormatException("unterminated string");
                    var c = s[i++];
                    if (c == '"') return sb.ToString();
                    if (c != '\\') { sb.Append(c); continue; }
                    if (AtEnd) throw new FormatException("unterminated escape");
                    var e = s[i++];
                    switch (e)
                    {
                        case '"': sb.Append('"'); break;
                        case '\\': sb.Append('\\'); break;
                        case '/': sb.Append('/'); break;
                        case 'b': sb.Append('\b'); break;
                        case 'f': sb.Append('\f'); break;
                        case 'n': sb.Append('\n'); break;
                        case 'r': sb.Append('\r'); break;
                        case 't': sb.Append('\t'); break;
                        case 'u':
                            if (i + 4 > s.Length) throw new FormatException("bad \\u escape");
                            sb.Append((char)int.Parse(s.Substring(i, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
                            i += 4;
                            break;
                        default: throw new FormatException("bad escape \\" + e);
                    }
                }
            }

            double ReadNumber()
            {
                var start = i;
                while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0) i++;
                double d;
                if (start == i || !double.TryParse(s.Substring(start, i - start), NumberStyles.Float, CultureInfo.InvariantCulture, out d))
                    throw new FormatException("bad JSON value at " + start);
                return d;
            }
        }
    }
}
