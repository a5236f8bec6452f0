package clickbench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql/hashmix"
)

// DefaultBatchRows is the number of rows per record when none is asked for.
const DefaultBatchRows = 1 << 16

// month is July 2013, the month of the original data set: EventTime
// runs over its seconds.
var (
	monthStart   = time.Date(2013, 7, 1, 0, 0, 0, 0, time.UTC).Unix()
	monthSeconds = int64(31 * 86400)
)

// refererWeights weigh the kinds of Referer: none, a search engine's,
// the same site's, another site's.
var refererWeights = []int{30, 15, 30, 25}

// TieFreeRows is the largest number of rows whose EventTimes are all
// different: EventTime walks the month's seconds with timeStride, so the
// first monthSeconds rows meet every second once. Larger tables have rows
// of equal EventTime, which ORDER BY EventTime may return in any order.
const TieFreeRows = 31 * 86400

// timeStride walks the month's seconds in an order that looks random: it
// is prime and does not divide monthSeconds, so the first monthSeconds
// rows all have different EventTimes (which keeps ORDER BY EventTime
// free of ties up to 2.6 million rows).
const timeStride = 1000003

// Generator makes the rows of one hits table.
type Generator struct {
	rows int64
	seed uint64

	users, counters, regions, paths, phrases int

	zUser, zCounter, zRegion, zPath, zPhrase, zOuterPath zipf
	zAdv, zModel, zSearchEngine                          zipf
}

// ErrRows is returned by New for a negative row count.
var ErrRows = errors.New("clickbench: the number of rows must not be negative")

// New returns a generator of rows rows of hits, deterministic by seed.
// The sizes of the populations (users, counters, regions, pages, search
// phrases) grow with rows, as they would in a larger sample of traffic.
func New(rows int64, seed uint64) (*Generator, error) {
	if rows < 0 {
		return nil, fmt.Errorf("%w: %d", ErrRows, rows)
	}
	clamp := func(v int64, lo, hi int) int { return int(max(min(v, int64(hi)), int64(lo))) }
	g := &Generator{
		rows:     rows,
		seed:     seed,
		users:    clamp(rows/6, 20, 1<<30),
		counters: clamp(rows/1000, 40, 10000),
		regions:  clamp(rows/200, 30, 9000),
		paths:    clamp(rows/8, 50, 1<<26),
		phrases:  clamp(rows/40, 50, 1<<24),
	}
	g.zUser = newZipf(g.users, 0.9)
	g.zCounter = newZipf(g.counters, 1.15)
	g.zRegion = newZipf(g.regions, 1.1)
	g.zPath = newZipf(g.paths, 0.8)
	g.zPhrase = newZipf(g.phrases, 0.9)
	g.zOuterPath = newZipf(100, 1.1)
	g.zAdv = newZipf(len(advEngines), 1.3)
	g.zModel = newZipf(len(phoneModels), 1.2)
	g.zSearchEngine = newZipf(len(searchEngines), 1.2)
	return g, nil
}

// Rows is the number of rows the generator makes.
func (g *Generator) Rows() int64 { return g.rows }

// Generate makes all rows in order and hands them to emit in records of
// about batchRows rows (DefaultBatchRows if batchRows <= 0). emit owns
// each record and must release it.
func (g *Generator) Generate(ctx context.Context, batchRows int, emit func(arrow.Record) error) error {
	return g.GenerateRange(ctx, 0, g.rows, batchRows, emit)
}

// GenerateRange is Generate for the rows numbered first (0-based) through
// first+count-1, cut to the table's end.
func (g *Generator) GenerateRange(ctx context.Context, first, count int64, batchRows int, emit func(arrow.Record) error) error {
	if batchRows <= 0 {
		batchRows = DefaultBatchRows
	}
	end := min(first+count, g.rows)
	b := newBuilder()
	defer b.release()
	b.reserve(int(min(int64(batchRows), end-first)))
	for row := max(first, 0); row < end; row++ {
		g.row(b, row)
		if b.rows >= batchRows {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := emit(b.record()); err != nil {
				return err
			}
			b.reserve(int(min(int64(batchRows), end-row-1)))
		}
	}
	if b.rows > 0 {
		return emit(b.record())
	}
	return nil
}

// builder holds one typed Arrow builder per column.
type builder struct {
	rb    *array.RecordBuilder
	ints  [numColumns]*array.Int64Builder
	strs  [numColumns]*array.StringBuilder
	times [numColumns]*array.TimestampBuilder
	date  *array.Date32Builder
	rows  int
	buf   []byte // scratch for URL-like strings
	ref   []byte
	title []byte
}

func newBuilder() *builder {
	b := &builder{rb: array.NewRecordBuilder(memory.DefaultAllocator, schema)}
	for i, c := range columns {
		switch c.typ {
		case tInt:
			b.ints[i] = b.rb.Field(i).(*array.Int64Builder)
		case tStr:
			b.strs[i] = b.rb.Field(i).(*array.StringBuilder)
		case tTime:
			b.times[i] = b.rb.Field(i).(*array.TimestampBuilder)
		case tDate:
			b.date = b.rb.Field(i).(*array.Date32Builder)
		}
	}
	return b
}

func (b *builder) record() arrow.Record {
	b.rows = 0
	return b.rb.NewRecord()
}

func (b *builder) release() { b.rb.Release() }

// reserve makes room for n more rows, so that the builders do not grow
// (and copy) as rows come.
func (b *builder) reserve(n int) {
	if n <= 0 {
		return
	}
	b.rb.Reserve(n)
	for c, bytes := range map[int]int{cURL: 40, cReferer: 32, cTitle: 48} {
		b.strs[c].ReserveData(n * bytes)
	}
}

func (b *builder) int(c int, v int64)    { b.ints[c].Append(v) }
func (b *builder) str(c int, v string)   { b.strs[c].Append(v) }
func (b *builder) bytes(c int, v []byte) { b.strs[c].BinaryBuilder.Append(v) }
func (b *builder) bit(c int, r *rng, p float64) {
	if r.chance(p) {
		b.ints[c].Append(1)
	} else {
		b.ints[c].Append(0)
	}
}
func (b *builder) ts(c int, unix int64) { b.times[c].Append(arrow.Timestamp(unix * 1e6)) }

// userID is the UserID of the user of rank k: rank knownUserRank is the
// user that Q20 looks for, the others are scattered 63-bit numbers.
func (g *Generator) userID(k int) int64 {
	if k == knownUserRank {
		return knownUserID
	}
	return int64(hashmix.SplitMix64(uint64(k)*0x9e3779b97f4a7c15^g.seed) >> 1)
}

func counterID(k int) int64 {
	if k == 0 {
		return topCounterID
	}
	return 100 + int64(k)*13
}

func regionID(k int) int64 {
	if k < len(regionTop) {
		return regionTop[k]
	}
	return 1000 + int64(k)*3
}

// appendHost appends the host of counter k: its domain, with www. for
// some.
func appendHost(dst []byte, k int) []byte {
	if withWWW(k) {
		dst = append(dst, "www."...)
	}
	if k < len(domains) {
		return append(dst, domains[k]...)
	}
	dst = append(dst, "site"...)
	dst = strconv.AppendInt(dst, int64(k), 10)
	return append(dst, ".ru"...)
}

// appendPage appends the URL of page p of counter k's site: page 0 is the
// front page, the others a section and a number, some with a query.
func appendPage(dst []byte, k, p int) []byte {
	if k%5 == 2 {
		dst = append(dst, "https://"...)
	} else {
		dst = append(dst, "http://"...)
	}
	dst = appendHost(dst, k)
	dst = append(dst, '/')
	if p == 0 {
		return dst
	}
	h := hashmix.SplitMix64(uint64(k)<<32 | uint64(p))
	dst = append(dst, sections[1+int(h%uint64(len(sections)-1))]...)
	dst = append(dst, '/')
	dst = strconv.AppendInt(dst, int64(p), 10)
	if h>>20%4 == 0 {
		dst = append(dst, "?from="...)
		dst = append(dst, words[int(h>>24%uint64(len(words)))]...)
	} else {
		dst = append(dst, ".html"...)
	}
	return dst
}

// appendPhrase appends search phrase number k: two to four words.
func appendPhrase(dst []byte, k int) []byte {
	h := hashmix.SplitMix64(uint64(k) + 0x5eed)
	n := 2 + int(h%3)
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ' ')
		}
		h = hashmix.SplitMix64(h + uint64(i))
		dst = append(dst, words[int(h%uint64(len(words)))]...)
	}
	return dst
}

// appendTitle appends the title of page p of counter k's site.
func appendTitle(dst []byte, k, p int) []byte {
	h := hashmix.SplitMix64(uint64(k)<<32 | uint64(p) | 1<<63)
	n := 1 + int(h%3)
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ' ')
		}
		h = hashmix.SplitMix64(h + uint64(i))
		dst = append(dst, titleWords[int(h%uint64(len(titleWords)))]...)
	}
	dst = append(dst, " - "...)
	return appendHost(dst, k)
}

// row appends row number row.
func (g *Generator) row(b *builder, row int64) {
	r := rowRNG(g.seed, row)
	b.rows++

	counter := r.zipf(g.zCounter)
	user := r.zipf(g.zUser)
	uid := g.userID(user)
	uh := hashmix.SplitMix64(uint64(uid))
	page := 0
	if !r.chance(0.08) {
		page = 1 + r.zipf(g.zPath)
	}
	t := monthStart + (row*timeStride+int64(g.seed%uint64(monthSeconds)))%monthSeconds
	search := r.chance(0.12)
	phrase := -1
	if search {
		phrase = r.zipf(g.zPhrase)
	}
	adv := int64(0)
	if r.chance(0.03) {
		adv = int64(advEngines[r.zipf(g.zAdv)])
	}
	model := -1
	if r.chance(0.08) {
		model = r.zipf(g.zModel)
	}
	res := resolutions[r.weighted(resolutionWeights)]
	if model >= 0 {
		res = resolutions[10+r.intn(2)]
	}

	// URL, its hash, and the page title.
	b.buf = appendPage(b.buf[:0], counter, page)
	urlHash := fnv64(b.buf)
	if counter == 0 && page == 0 {
		urlHash = topURLHash
	}
	b.title = b.title[:0]
	if !r.chance(0.05) {
		b.title = appendTitle(b.title, counter, page)
	}

	// Referer: none, a search engine's result page, another page of the
	// same site, or a page of another site.
	b.ref = b.ref[:0]
	refKind := r.weighted(refererWeights)
	if search {
		refKind = 1
	}
	refHash := int64(0)
	switch refKind {
	case 1:
		if r.chance(0.6) {
			b.ref = append(b.ref, "http://yandex.ru/yandsearch?text="...)
		} else {
			b.ref = append(b.ref, "https://www.google.ru/search?q="...)
		}
		if phrase >= 0 {
			b.ref = appendPhrase(b.ref, phrase)
			for i, c := range b.ref {
				if c == ' ' {
					b.ref[i] = '+'
				}
			}
		}
	case 2:
		b.ref = appendPage(b.ref, counter, r.zipf(g.zPath))
	case 3:
		b.ref = appendPage(b.ref, r.zipf(g.zCounter), r.zipf(g.zOuterPath))
	}
	if len(b.ref) > 0 {
		refHash = fnv64(b.ref)
		if string(b.ref) == "http://mail.ru/" {
			refHash = topRefererHash
		}
	}

	traffic := int64(trafficSources[r.weighted(trafficWeights)])
	searchEngine := int64(0)
	if search {
		traffic = 2
		searchEngine = int64(searchEngines[r.zipf(g.zSearchEngine)])
	} else if adv != 0 {
		traffic = 3
	}

	b.int(cWatchID, int64(r.next()>>1))
	b.bit(cJavaEnable, &r, 0.7)
	b.bytes(cTitle, b.title)
	b.bit(cGoodEvent, &r, 0.98)
	b.ts(cEventTime, t)
	b.date.Append(arrow.Date32(t / 86400))
	b.int(cCounterID, counterID(counter))
	clientIP := int64(int32(uh))
	if r.chance(0.1) {
		clientIP = int64(int32(r.next()))
	}
	b.int(cClientIP, clientIP)
	b.int(cRegionID, regionID(r.zipf(g.zRegion)))
	b.int(cUserID, uid)
	b.int(cCounterClass, int64(r.intn(3)))
	b.int(cOS, int64(uh>>8%60))
	b.int(cUserAgent, int64(uh>>16%40))
	b.bytes(cURL, b.buf)
	b.bytes(cReferer, b.ref)
	b.bit(cIsRefresh, &r, 0.1)
	b.int(cRefererCategoryID, int64(r.intn(20)))
	b.int(cRefererRegionID, regionID(r.zipf(g.zRegion)))
	b.int(cURLCategoryID, int64(r.intn(20)))
	b.int(cURLRegionID, regionID(r.zipf(g.zRegion)))
	b.int(cResolutionWidth, int64(res[0]))
	b.int(cResolutionHeight, int64(res[1]))
	b.int(cResolutionDepth, int64(res[2]))
	b.int(cFlashMajor, int64(r.intn(12)))
	b.int(cFlashMinor, int64(r.intn(10)))
	b.str(cFlashMinor2, flashMinor2s[r.intn(len(flashMinor2s))])
	b.int(cNetMajor, int64(r.intn(5)))
	b.int(cNetMinor, int64(r.intn(10)))
	b.int(cUserAgentMajor, int64(uh>>24%30))
	b.str(cUserAgentMinor, uaMinors[uh>>32%uint64(len(uaMinors))])
	b.bit(cCookieEnable, &r, 0.97)
	b.bit(cJavascriptEnable, &r, 0.95)
	if model >= 0 {
		b.int(cIsMobile, 1)
		b.int(cMobilePhone, int64(1+model%7))
		b.str(cMobilePhoneModel, phoneModels[model])
	} else {
		b.int(cIsMobile, 0)
		b.int(cMobilePhone, 0)
		b.str(cMobilePhoneModel, "")
	}
	b.str(cParams, "")
	b.int(cIPNetworkID, int64(uh>>40%5000))
	b.int(cTraficSourceID, traffic)
	b.int(cSearchEngineID, searchEngine)
	if phrase >= 0 {
		b.buf = appendPhrase(b.buf[:0], phrase)
		b.bytes(cSearchPhrase, b.buf)
	} else {
		b.str(cSearchPhrase, "")
	}
	b.int(cAdvEngineID, adv)
	b.bit(cIsArtifical, &r, 0.01)
	ww, wh := int64(0), int64(0)
	if res[0] > 0 {
		ww = int64(res[0] - r.intn(4)*20)
		wh = int64(res[1] - 100 - r.intn(4)*30)
	}
	b.int(cWindowClientWidth, ww)
	b.int(cWindowClientHeight, wh)
	tz := int64(uh>>48%5) - 1
	b.int(cClientTimeZone, tz*60)
	b.ts(cClientEventTime, t+tz*3600+int64(r.intn(5)))
	b.int(cSilverlightVersion1, int64(r.intn(6)))
	b.int(cSilverlightVersion2, int64(r.intn(2)))
	b.int(cSilverlightVersion3, int64(r.intn(60000)))
	b.int(cSilverlightVersion4, int64(r.intn(2)))
	b.str(cPageCharset, charsets[r.weighted(charsetWeights)])
	b.int(cCodeVersion, int64(200+r.intn(900)))
	b.bit(cIsLink, &r, 0.05)
	b.bit(cIsDownload, &r, 0.02)
	b.bit(cIsNotBounce, &r, 0.3)
	b.int(cFUniqID, int64(hashmix.SplitMix64(uh)>>1))
	b.str(cOriginalURL, "")
	b.int(cHID, int64(int32(r.next())))
	b.bit(cIsOldCounter, &r, 0.02)
	b.bit(cIsEvent, &r, 0.05)
	b.bit(cIsParameter, &r, 0.02)
	b.bit(cDontCountHits, &r, 0.05)
	b.bit(cWithHash, &r, 0.03)
	b.str(cHitColor, hitColors[r.weighted(hitColorWeights)])
	b.ts(cLocalEventTime, t+3*3600)
	b.int(cAge, int64(uh>>52%7)*10)
	b.int(cSex, int64(uh>>56%3))
	b.int(cIncome, int64(uh>>58%4))
	b.int(cInterests, int64(r.intn(1000)))
	b.int(cRobotness, int64(r.intn(10)/9))
	b.int(cRemoteIP, int64(int32(uh>>13)))
	b.int(cWindowName, int64(r.intn(100000)))
	b.int(cOpenerName, int64(r.intn(100000)))
	b.int(cHistoryLength, int64(r.intn(20)))
	b.str(cBrowserLanguage, languages[r.weighted(languageWeights)])
	b.str(cBrowserCountry, countries[r.weighted(countryWeights)])
	b.str(cSocialNetwork, socialNetworks[r.weighted(socialWeights)])
	b.str(cSocialAction, "")
	b.int(cHTTPError, int64(r.intn(100)/98*404))
	b.int(cSendTiming, int64(r.intn(1000)))
	b.int(cDNSTiming, int64(r.intn(200)))
	b.int(cConnectTiming, int64(r.intn(500)))
	b.int(cResponseStartTiming, int64(r.intn(2000)))
	b.int(cResponseEndTiming, int64(r.intn(3000)))
	b.int(cFetchTiming, int64(r.intn(3000)))
	b.int(cSocialSourceNetworkID, int64(r.intn(100)/95))
	b.str(cSocialSourcePage, "")
	cur := r.weighted(currencyWeights)
	if cur > 0 {
		b.int(cParamPrice, int64(100+r.intn(100000)))
		b.str(cParamOrderID, strconv.Itoa(r.intn(1000000)))
	} else {
		b.int(cParamPrice, 0)
		b.str(cParamOrderID, "")
	}
	b.str(cParamCurrency, currencies[cur])
	b.int(cParamCurrencyID, int64(cur))
	b.str(cOpenstatServiceName, "")
	b.str(cOpenstatCampaignID, "")
	b.str(cOpenstatAdID, "")
	b.str(cOpenstatSourceID, "")
	utm := r.weighted(utmSourceWeights)
	b.str(cUTMSource, utmSources[utm])
	if utm > 0 {
		b.str(cUTMMedium, "cpc")
		b.str(cUTMCampaign, "campaign"+strconv.Itoa(r.intn(50)))
	} else {
		b.str(cUTMMedium, "")
		b.str(cUTMCampaign, "")
	}
	b.str(cUTMContent, "")
	b.str(cUTMTerm, "")
	b.str(cFromTag, "")
	b.bit(cHasGCLID, &r, 0.01)
	b.int(cRefererHash, refHash)
	b.int(cURLHash, urlHash)
	b.int(cCLID, int64(r.intn(100)/90*r.intn(1000)))
}
