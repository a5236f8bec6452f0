package clickbench

// The pools that strings are drawn from. The named domains come first so
// that the most frequent counters are well-known sites; less frequent
// counters get generated names. The query constants of ClickBench
// (CounterID 62, UserID 435090932899640449, RefererHash
// 3594120000172545465, URLHash 2868770270353813622) are given to frequent
// values so that the queries that filter on them find rows.
const (
	topCounterID   = 62
	knownUserID    = 435090932899640449
	knownUserRank  = 3
	topRefererHash = 3594120000172545465
	topURLHash     = 2868770270353813622
)

var domains = []string{
	"mail.ru", "yandex.ru", "vk.com", "avito.ru", "odnoklassniki.ru", "news.yandex.ru",
	"google.ru", "kinopoisk.ru", "livejournal.com", "auto.ru", "rambler.ru", "youtube.com",
	"lenta.ru", "rbc.ru", "hh.ru", "irr.ru", "drom.ru", "market.yandex.ru", "maps.google.com",
	"kp.ru", "gazeta.ru", "sport-express.ru", "ria.ru", "championat.com", "pogoda.yandex.ru",
	"images.google.ru", "aif.ru", "mk.ru", "fishki.net", "pikabu.ru", "habrahabr.ru",
	"wikipedia.org", "afisha.ru", "ozon.ru", "wildberries.ru", "eldorado.ru", "cian.ru",
	"tutu.ru", "rzd.ru", "sberbank.ru",
}

// withWWW says whether a domain's URLs start with www. (every third).
func withWWW(d int) bool { return d%3 == 1 }

var sections = []string{
	"", "news", "catalog", "search", "forum", "video", "item", "photo", "user", "cars",
	"realty", "job", "weather", "sport", "music", "games", "blog", "comments", "map", "shop",
}

var words = []string{
	"kupit", "prodam", "kvartira", "moskva", "avto", "bu", "cena", "foto", "video",
	"smotret", "online", "besplatno", "film", "serial", "igra", "pogoda", "novosti",
	"rabota", "vakansii", "spb", "iphone", "samsung", "telefon", "noutbuk", "platie",
	"detskie", "recepty", "torrent", "skachat", "muzyka", "google", "yandex", "karta",
	"avia", "bilety", "otel", "turcia", "egypet", "kredit", "bank", "ipoteka", "remont",
	"dacha", "sad", "kot", "sobaka", "shkola", "universitet", "ekzamen", "otvety",
	"kino", "teatr", "futbol", "hokkei", "chempionat", "rezultaty", "znakomstva",
	"horoskop", "goroskop", "modnye", "pricheski", "diety", "lechenie", "simptomy",
}

// titleWords make page titles; "Google" is among them so that titles
// mention it on sites that are not Google's (Q23).
var titleWords = []string{
	"Новости", "Главная", "Каталог", "Объявления", "Продажа", "Купить", "Отзывы",
	"Фото", "Видео", "Форум", "Погода", "Карта", "Поиск", "Google", "Яндекс", "Почта",
	"Работа", "Авто", "Недвижимость", "Спорт", "Музыка", "Игры", "Кино", "Блог",
}

var phoneModels = []string{
	"iPad", "iPhone", "GT-I9300", "GT-I9100", "Lumia 920", "HTC One", "Nexus 4",
	"GT-N7100", "Xperia Z", "GT-S5830", "MI-ONE", "A820", "GT-P5100", "LT26i",
}

var resolutions = [][3]int{
	{1920, 1080, 24}, {1366, 768, 24}, {1280, 1024, 24}, {1280, 800, 24}, {1024, 768, 24},
	{1600, 900, 24}, {1440, 900, 24}, {1680, 1050, 24}, {1360, 768, 32}, {800, 600, 16},
	{320, 480, 24}, {360, 640, 24}, {0, 0, 0},
}
var resolutionWeights = []int{22, 20, 10, 8, 9, 7, 6, 5, 4, 2, 3, 3, 1}

var (
	charsets         = []string{"utf-8", "windows-1251", "koi8-r", ""}
	charsetWeights   = []int{60, 35, 2, 3}
	languages        = []string{"ru", "en", "uk", "be", "kk", "de", ""}
	languageWeights  = []int{80, 8, 5, 2, 2, 1, 2}
	countries        = []string{"ru", "ua", "by", "kz", "us", "de", ""}
	countryWeights   = []int{80, 7, 4, 3, 2, 1, 3}
	socialNetworks   = []string{"", "vkontakte_ru", "odnoklassniki_ru", "facebook", "twitter"}
	socialWeights    = []int{95, 2, 1, 1, 1}
	hitColors        = []string{"5", "E", "F", "D"}
	hitColorWeights  = []int{50, 30, 15, 5}
	flashMinor2s     = []string{"", "0", "1", "2", "5", "7"}
	uaMinors         = []string{"0", "1", "5", "6", "D0", "D5", "Gb"}
	utmSources       = []string{"", "yandex", "google", "direct", "email", "vk"}
	utmSourceWeights = []int{94, 2, 1, 1, 1, 1}
	currencies       = []string{"", "RUB", "USD", "EUR"}
	currencyWeights  = []int{96, 2, 1, 1}
	trafficSources   = []int{-1, 0, 1, 3, 4, 5, 6, 7, 8}
	trafficWeights   = []int{15, 35, 10, 3, 6, 4, 15, 7, 5}
	advEngines       = []int{2, 3, 4, 13, 16, 17, 27, 30, 58, 12}
	searchEngines    = []int{2, 3, 13, 4, 1, 5, 8, 17, 41}
	regionTop        = []int64{229, 2, 208, 169, 184, 158, 34, 107, 42, 146}
)
