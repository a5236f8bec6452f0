package clickbench

import "github.com/apache/arrow/go/v17/arrow"

var (
	tInt  = arrow.PrimitiveTypes.Int64
	tStr  = arrow.BinaryTypes.String
	tDate = arrow.FixedWidthTypes.Date32
	tTime = &arrow.TimestampType{Unit: arrow.Microsecond}
)

// Column numbers of hits, in create.sql's order.
const (
	cWatchID = iota
	cJavaEnable
	cTitle
	cGoodEvent
	cEventTime
	cEventDate
	cCounterID
	cClientIP
	cRegionID
	cUserID
	cCounterClass
	cOS
	cUserAgent
	cURL
	cReferer
	cIsRefresh
	cRefererCategoryID
	cRefererRegionID
	cURLCategoryID
	cURLRegionID
	cResolutionWidth
	cResolutionHeight
	cResolutionDepth
	cFlashMajor
	cFlashMinor
	cFlashMinor2
	cNetMajor
	cNetMinor
	cUserAgentMajor
	cUserAgentMinor
	cCookieEnable
	cJavascriptEnable
	cIsMobile
	cMobilePhone
	cMobilePhoneModel
	cParams
	cIPNetworkID
	cTraficSourceID
	cSearchEngineID
	cSearchPhrase
	cAdvEngineID
	cIsArtifical
	cWindowClientWidth
	cWindowClientHeight
	cClientTimeZone
	cClientEventTime
	cSilverlightVersion1
	cSilverlightVersion2
	cSilverlightVersion3
	cSilverlightVersion4
	cPageCharset
	cCodeVersion
	cIsLink
	cIsDownload
	cIsNotBounce
	cFUniqID
	cOriginalURL
	cHID
	cIsOldCounter
	cIsEvent
	cIsParameter
	cDontCountHits
	cWithHash
	cHitColor
	cLocalEventTime
	cAge
	cSex
	cIncome
	cInterests
	cRobotness
	cRemoteIP
	cWindowName
	cOpenerName
	cHistoryLength
	cBrowserLanguage
	cBrowserCountry
	cSocialNetwork
	cSocialAction
	cHTTPError
	cSendTiming
	cDNSTiming
	cConnectTiming
	cResponseStartTiming
	cResponseEndTiming
	cFetchTiming
	cSocialSourceNetworkID
	cSocialSourcePage
	cParamPrice
	cParamOrderID
	cParamCurrency
	cParamCurrencyID
	cOpenstatServiceName
	cOpenstatCampaignID
	cOpenstatAdID
	cOpenstatSourceID
	cUTMSource
	cUTMMedium
	cUTMCampaign
	cUTMContent
	cUTMTerm
	cFromTag
	cHasGCLID
	cRefererHash
	cURLHash
	cCLID
	numColumns
)

// columns are hits' names and gsql types in create.sql's order (source:
// ClickBench's create.sql, with the type mapping of the package doc).
var columns = [numColumns]struct {
	name string
	typ  arrow.DataType
}{
	{"WatchID", tInt}, {"JavaEnable", tInt}, {"Title", tStr}, {"GoodEvent", tInt},
	{"EventTime", tTime}, {"EventDate", tDate}, {"CounterID", tInt}, {"ClientIP", tInt},
	{"RegionID", tInt}, {"UserID", tInt}, {"CounterClass", tInt}, {"OS", tInt},
	{"UserAgent", tInt}, {"URL", tStr}, {"Referer", tStr}, {"IsRefresh", tInt},
	{"RefererCategoryID", tInt}, {"RefererRegionID", tInt}, {"URLCategoryID", tInt},
	{"URLRegionID", tInt}, {"ResolutionWidth", tInt}, {"ResolutionHeight", tInt},
	{"ResolutionDepth", tInt}, {"FlashMajor", tInt}, {"FlashMinor", tInt},
	{"FlashMinor2", tStr}, {"NetMajor", tInt}, {"NetMinor", tInt}, {"UserAgentMajor", tInt},
	{"UserAgentMinor", tStr}, {"CookieEnable", tInt}, {"JavascriptEnable", tInt},
	{"IsMobile", tInt}, {"MobilePhone", tInt}, {"MobilePhoneModel", tStr}, {"Params", tStr},
	{"IPNetworkID", tInt}, {"TraficSourceID", tInt}, {"SearchEngineID", tInt},
	{"SearchPhrase", tStr}, {"AdvEngineID", tInt}, {"IsArtifical", tInt},
	{"WindowClientWidth", tInt}, {"WindowClientHeight", tInt}, {"ClientTimeZone", tInt},
	{"ClientEventTime", tTime}, {"SilverlightVersion1", tInt}, {"SilverlightVersion2", tInt},
	{"SilverlightVersion3", tInt}, {"SilverlightVersion4", tInt}, {"PageCharset", tStr},
	{"CodeVersion", tInt}, {"IsLink", tInt}, {"IsDownload", tInt}, {"IsNotBounce", tInt},
	{"FUniqID", tInt}, {"OriginalURL", tStr}, {"HID", tInt}, {"IsOldCounter", tInt},
	{"IsEvent", tInt}, {"IsParameter", tInt}, {"DontCountHits", tInt}, {"WithHash", tInt},
	{"HitColor", tStr}, {"LocalEventTime", tTime}, {"Age", tInt}, {"Sex", tInt},
	{"Income", tInt}, {"Interests", tInt}, {"Robotness", tInt}, {"RemoteIP", tInt},
	{"WindowName", tInt}, {"OpenerName", tInt}, {"HistoryLength", tInt},
	{"BrowserLanguage", tStr}, {"BrowserCountry", tStr}, {"SocialNetwork", tStr},
	{"SocialAction", tStr}, {"HTTPError", tInt}, {"SendTiming", tInt}, {"DNSTiming", tInt},
	{"ConnectTiming", tInt}, {"ResponseStartTiming", tInt}, {"ResponseEndTiming", tInt},
	{"FetchTiming", tInt}, {"SocialSourceNetworkID", tInt}, {"SocialSourcePage", tStr},
	{"ParamPrice", tInt}, {"ParamOrderID", tStr}, {"ParamCurrency", tStr},
	{"ParamCurrencyID", tInt}, {"OpenstatServiceName", tStr}, {"OpenstatCampaignID", tStr},
	{"OpenstatAdID", tStr}, {"OpenstatSourceID", tStr}, {"UTMSource", tStr},
	{"UTMMedium", tStr}, {"UTMCampaign", tStr}, {"UTMContent", tStr}, {"UTMTerm", tStr},
	{"FromTag", tStr}, {"HasGCLID", tInt}, {"RefererHash", tInt}, {"URLHash", tInt},
	{"CLID", tInt},
}

var schema = func() *arrow.Schema {
	f := make([]arrow.Field, len(columns))
	for i, c := range columns {
		f[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: true}
	}
	return arrow.NewSchema(f, nil)
}()

// Schema is the Arrow schema of hits' records: 105 columns.
func Schema() *arrow.Schema { return schema }
