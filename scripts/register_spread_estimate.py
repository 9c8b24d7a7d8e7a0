"""Would a register-like spread of names make a full name cheaper to count than the load's
`NAMES=varied` spread (issue 42, twenty-fourth session; docs/performance.md)? List lengths only,
not an engine: for 300 full names of each spread, the postings the index's count reads (its `m`
shortest trigram lists, `walk/count.rs`), as scripts/pair_filter_estimate.py counts them.

Usage: python3 scripts/register_spread_estimate.py [PLAYERS]   (default 1,000,000; about 2 min)

The register-like names: the players are spread over five countries by id (NO, PL, SE, DK, DE,
as the load's `country` column). Each country has its common first names (by sex) and
surnames, written here in rough order of how common they are, and each is drawn with Zipf
weights (the r-th name 1/r^0.6 as common as the first for surnames, 1/r^0.4 for first names:
the most common surname of a country is carried by 1-3% of its people). Common surnames are a
third of the draws; the rest come from a long tail of compounds made the way each country makes its
rarer names (farm and place names such as Bjørheim or Sandvik, -ski and -czyk names, -mann and
-bach names), about a thousand per country. One player in ten has a second surname (Kari
Nordmann Hansen). No number: a register's names carry none.
"""


import bisect
import itertools
import math
import random
import re
import sys
import unicodedata
from collections import Counter

M = "male"
F = "female"

COUNTRIES = {
    "NO": {
        M: "Jan Per Bjørn Ole Lars Kjell Knut Arne Svein Thomas Hans Geir Tor Morten Terje Odd "
           "Erik Martin Andreas Rune Trond Anders Tore Jon Harald Kristian Espen Stian Magnus "
           "Jonas Øystein Håkon Sindre Eirik Henrik Even Vegard Sigurd Ivar Torbjørn",
        F: "Anne Inger Kari Marit Ingrid Liv Eva Berit Astrid Bjørg Hilde Anna Solveig Marianne "
           "Randi Ida Nina Elisabeth Kristin Bente Heidi Silje Hanne Gro Ingeborg Tone Camilla "
           "Ragnhild Sigrid Åse Maren Nora Emma Sofie Thea Ingvild Tuva Synnøve Guro Torill",
        "last": "Hansen Johansen Olsen Larsen Andersen Pedersen Nilsen Kristiansen Jensen Karlsen "
                "Johnsen Pettersen Eriksen Berg Haugen Hagen Johannessen Andreassen Jacobsen Dahl "
                "Jørgensen Halvorsen Henriksen Lund Sørensen Jakobsen Moen Gundersen Iversen "
                "Strand Solberg Svendsen Eide Knutsen Martinsen Paulsen Bakken Kristoffersen "
                "Mathisen Lie Amundsen Nguyen Rasmussen Ali Lunde Solheim Berge Moe Nygård Bakke "
                "Kristensen Fredriksen Holm Lien Hauge Christensen Andresen Nielsen Knudsen "
                "Evensen Sæther Aas Myhre Hanssen Ahmed Haugland Thomassen Sivertsen Simonsen "
                "Danielsen Berntsen Sandvik Rønning Arnesen Antonsen Næss Vik Haug Ellingsen "
                "Thorsen Edvardsen Birkeland Isaksen Gulbrandsen Ruud Aasen Strøm Myklebust "
                "Tangen Ødegård Eliassen Helland Bøe Jenssen Aune Mikkelsen Tveit Brekke",
        "stems": "Aas Ber Bjør Brat Dal Eik Fjell Flat Foss Gran Haug Hegg Holm Hov Kvam Lid Lang "
                 "Lø Mo Myr Nord Ny Ol Rød Sand Skog Sol Stav Stor Sør Tveit Ulv Vest Vik Øst Å "
                 "Bre Fager Gjer Hjel",
        "ends": "heim stad rud dal berg lund gård ås nes bø haug land set vik li by holm myr vold "
                "tun stø rem bakk aker",
    },
    "PL": {
        M: "Piotr Krzysztof Andrzej Tomasz Paweł Jan Michał Marcin Jakub Adam Łukasz Marek "
           "Grzegorz Mateusz Wojciech Mariusz Dariusz Zbigniew Jerzy Maciej Rafał Robert Kamil "
           "Józef Ryszard Tadeusz Stanisław Sebastian Bartosz Damian",
        F: "Anna Maria Katarzyna Małgorzata Agnieszka Barbara Ewa Krystyna Elżbieta Magdalena "
           "Joanna Zofia Monika Teresa Danuta Natalia Aleksandra Karolina Marta Beata Dorota "
           "Halina Jadwiga Janina Irena Alicja Justyna Paulina Weronika Wiktoria",
        "last": "Nowak Kowalski Wiśniewski Wójcik Kowalczyk Kamiński Lewandowski Zieliński "
                "Szymański Woźniak Dąbrowski Kozłowski Jankowski Mazur Wojciechowski Kwiatkowski "
                "Krawczyk Kaczmarek Piotrowski Grabowski Zając Pawłowski Michalski Król Wieczorek "
                "Jabłoński Wróbel Nowakowski Majewski Olszewski Stępień Malinowski Jaworski "
                "Adamczyk Dudek Nowicki Pawlak Górski Witkowski Walczak Sikora Baran Rutkowski "
                "Michalak Szewczyk Ostrowski Tomaszewski Pietrzak Zalewski Wróblewski Marciniak "
                "Jasiński Zawadzki Bąk Jakubowski Sadowski Duda Włodarczyk Wilk Chmielewski "
                "Borkowski Sokołowski Szczepański Sawicki Lis Kucharski Mazurek Kubiak "
                "Kalinowski Wysocki",
        "stems": "Adam Bar Bia Bog Bor Chmiel Cie Czar Dąb Dom Fil Gaj Gor Grab Jab Jan Kacz Kal "
                 "Kam Kos Krzy Kur Las Lip Mal Mar Mich Mil Nad Ol Pach Pie Rad Rog Sad Sob Stan "
                 "Szcz Tar Tom Wal Wit Wol Zaw Zel Żak Brzez Dziedz Głow Kowal",
        "ends": "owski ewski iński ecki ak czyk ek owicz ewicz uk ik ala ski",
    },
    "SE": {
        M: "Lars Mikael Anders Johan Erik Per Karl Peter Jan Thomas Daniel Fredrik Hans Bengt "
           "Mats Magnus Mattias Niklas Gustav Oskar Nils Björn Stefan Henrik Olof",
        F: "Anna Eva Maria Karin Kristina Lena Sara Kerstin Emma Ingrid Marie Malin Birgitta "
           "Sofia Elin Ida Linnéa Hanna Johanna Ulla Camilla Elsa Astrid Maja Frida",
        "last": "Andersson Johansson Karlsson Nilsson Eriksson Larsson Olsson Persson Svensson "
                "Gustafsson Pettersson Jonsson Jansson Hansson Bengtsson Jönsson Lindberg "
                "Jakobsson Magnusson Olofsson Lindström Lindqvist Lindgren Axelsson Berg "
                "Bergström Lundberg Lind Lundgren Lundqvist Mattsson Berglund Fredriksson "
                "Sandberg Henriksson Forsberg Sjöberg Wallin Engström Eklund Danielsson Lundin "
                "Håkansson Björk Bergman Gunnarsson Holm Wikström Samuelsson Isaksson Fransson "
                "Bergqvist Nyström Holmberg Arvidsson Löfgren Söderberg Nyberg Blomqvist "
                "Claesson Nordström Mårtensson Lundström Viklund Björklund Eliasson Pålsson "
                "Berggren Sandström Nordin Ström Åberg Hermansson Ekström Holmgren Sundberg "
                "Hedlund Dahlberg Hellström Sjögren Abrahamsson Falk Öberg Andreasson Månsson "
                "Ek Blom",
        "stems": "Ahl Alm Berg Björk Blom Dahl Ek Eng Fors Gran Hag Hed Hell Holm Kull Lin Ljung "
                 "Lund Malm Nord Ny Rosen Sand Sjö Sköld Sten Ström Sund Tall Wall Wester Öster "
                 "Åker Ös",
        "ends": "berg ström qvist gren lund man blad dahl holm sten vall ling fors sjö by näs "
                "mark kvist hammar stedt",
    },
    "DK": {
        M: "Peter Jens Lars Michael Henrik Søren Thomas Jan Niels Morten Anders Rasmus Martin "
           "Jesper Christian Hans Mads Mikkel Frederik Jacob Kasper Ole Poul Torben Bent",
        F: "Anne Kirsten Mette Hanne Anna Helle Susanne Lene Maria Marianne Lone Camilla Pia "
           "Louise Charlotte Bente Tina Gitte Inge Karen Ida Sofie Freja Emma Mathilde",
        "last": "Nielsen Jensen Hansen Pedersen Andersen Christensen Larsen Sørensen Rasmussen "
                "Jørgensen Petersen Madsen Kristensen Olsen Thomsen Christiansen Poulsen Johansen "
                "Møller Mortensen Knudsen Jakobsen Jacobsen Mikkelsen Olesen Frederiksen Laursen "
                "Henriksen Lund Schmidt Eriksen Holm Kristiansen Clausen Simonsen Svendsen "
                "Andreasen Iversen Jeppesen Mogensen Jespersen Nissen Lauridsen Kjær Jepsen "
                "Frandsen Østergaard Søndergaard Kristoffersen Nørgaard Jessen Bertelsen Dam "
                "Lassen Skov Bach Winther Toft Mathiasen Vestergaard Dahl Friis Holst Bak "
                "Kjeldsen Berg Nygaard Bruun Lind Beck Gregersen Damgaard Bisgaard Juhl Bonde "
                "Brandt Koch Overgaard Krogh Steffensen Bang Munk",
        "stems": "Ager Bak Birk Bro Dal Eng Fjord Grøn Hau Hede Holm Kjær Kirke Lyng Mølle Nør "
                 "Over Ris Sand Skov Sø Thor Vester Øster Ås Strand Mose Toft Bjerre Gade",
        "ends": "gaard bjerg holm lund skov dal strup rup bæk høj by sted toft vang mose borg",
    },
    "DE": {
        M: "Peter Michael Thomas Andreas Wolfgang Klaus Jürgen Stefan Christian Uwe Werner "
           "Frank Bernd Hans Matthias Markus Alexander Martin Jan Tobias Lukas Jonas Felix "
           "Maximilian Florian Dieter Helmut Manfred Günter Horst",
        F: "Maria Ursula Monika Petra Elisabeth Sabine Renate Helga Karin Brigitte Ingrid Erika "
           "Andrea Gisela Claudia Susanne Gabriele Christa Christine Anna Julia Laura Lea Sophie "
           "Katharina Lena Hannah Marie Emma Birgit",
        "last": "Müller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz Hoffmann "
                "Schäfer Koch Bauer Richter Klein Wolf Schröder Neumann Schwarz Zimmermann Braun "
                "Krüger Hofmann Hartmann Lange Schmitt Werner Schmitz Krause Meier Lehmann "
                "Schmid Schulze Maier Köhler Herrmann König Walter Mayer Huber Kaiser Fuchs "
                "Peters Lang Scholz Möller Weiß Jung Hahn Schubert Vogel Friedrich Keller "
                "Günther Frank Berger Winkler Roth Beck Lorenz Baumann Franke Albrecht Schuster "
                "Simon Ludwig Böhm Winter Kraus Martin Schumacher Krämer Vogt Stein Jäger Otto "
                "Sommer Groß Seidel Heinrich Brandt Haas Schreiber Graf Schulte Dietrich Ziegler "
                "Kuhn Kühn Pohl Engel Horn Busch Bergmann Thomas Voigt Sauer Arnold Wolff "
                "Pfeiffer",
        "stems": "Alt Bach Berg Birk Brand Dorn Eber Eich Feld Fried Gold Grün Hart Hein Hof Holz "
                 "Kirch Kling Lang Lind Mahl Neu Ober Reich Rosen Stein Stern Wald Wein Wies "
                 "Zimmer Linde Hirsch Acker",
        "ends": "mann er bach berg feld hof hausen meier stein ner dorf inger bauer huber hardt "
                "thal wald mayr brecht",
    },
}

# The load's `country` column: (ARRAY['NO','PL','SE','DK','DE'])[1 + g % 5].
ORDER = ["NO", "PL", "SE", "DK", "DE"]
COMMON_SURNAMES = 0.35
SECOND_SURNAME = 0.10
# Flatter than 1/r: the most common surname of a country is carried by 1-3% of its people
# (Hansen about 1% of Norwegians, Nowak 0.5% of Poles), its most common first name by a
# few per cent of one sex.
SURNAME_S = 0.6
FIRST_NAME_S = 0.4


class Zipf:
    """Draws from `items`, the r-th 1/r^s as likely as the first."""

    def __init__(self, items, s):
        self.items = items
        self.cumulative = list(itertools.accumulate(r ** -s for r in range(1, len(items) + 1)))

    def draw(self, rng):
        x = rng.random() * self.cumulative[-1]
        return self.items[bisect.bisect_right(self.cumulative, x)]


def feminine(surname):
    """Polish surnames agree with the bearer: Kowalski, Kowalska."""
    for he, she in (("ski", "ska"), ("cki", "cka"), ("dzki", "dzka")):
        if surname.endswith(he):
            return surname[: -len(he)] + she
    return surname


class Register:
    def __init__(self):
        self.by_country = {}
        for code, c in COUNTRIES.items():
            tail = [s + e for s in c["stems"].split() for e in c["ends"].split()]
            self.by_country[code] = (
                Zipf(c[M].split(), FIRST_NAME_S), Zipf(c[F].split(), FIRST_NAME_S),
                Zipf(c["last"].split(), SURNAME_S), tail)

    def surname(self, code, rng):
        _, _, common, tail = self.by_country[code]
        return common.draw(rng) if rng.random() < COMMON_SURNAMES else rng.choice(tail)

    def name(self, g, rng):
        code = ORDER[g % 5]
        men, women, _, _ = self.by_country[code]
        sex = rng.random() < 0.5
        first = (men if sex else women).draw(rng)
        last = self.surname(code, rng)
        if rng.random() < SECOND_SURNAME:
            last = self.surname(code, rng) + " " + last
        if code == "PL" and not sex:
            last = " ".join(feminine(w) for w in last.split())
        return f"{first} {last}"


def names(count, seed=42):
    """(g, name) for g in 1..count, the same on every run."""
    rng = random.Random(seed)
    register = Register()
    for g in range(1, count + 1):
        yield g, register.name(g, rng)

SPECIAL = str.maketrans({"ø": "o", "æ": "ae", "ł": "l", "ß": "ss", "đ": "d"})


def fold(s):
    """Lower case without marks, near enough to the index's folding for list lengths."""
    s = s.lower().translate(SPECIAL)
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def seq(name):
    out = []
    for w in re.findall(r"[a-z0-9]+", name):
        p = "  " + w + " "
        out.extend(p[i:i + 3] for i in range(len(p) - 2))
    return out


def counted(label, population):
    """The mean postings the count reads for 300 full names drawn from `population`."""
    n = len(population)
    tri = Counter()
    for name in population:
        tri.update(set(seq(name)))
    rng = random.Random(5)
    total = 0
    ks = []
    for _ in range(300):
        q = population[rng.randrange(n)]
        trigrams = set(seq(q))
        k = len(trigrams)
        need = math.ceil(0.6 * k - 1e-9)
        lengths = sorted(tri[t] for t in trigrams)
        m = min(k, max(k + 3 - need, sum(1 for x in lengths if x * 32 < n)))
        total += sum(lengths[:m])
        ks.append(k)
    print(f"{label}: {len(set(population))} distinct names, {len(tri)} trigrams, "
          f"{sum(tri.values())} postings; a full name: {sum(ks) / len(ks):.1f} trigrams, "
          f"{total / 300:.0f} postings counted")


def varied(count):
    """registry_load.py's NAMES=varied names, folded (as pair_filter_estimate.py makes them)."""
    rng = random.Random(7)
    syl = ["kar", "o", "sten", "ma", "lu", "kasz", "ber", "ga", "ni", "so", "ri", "ta", "je",
           "lo", "vik", "ha"]
    out = []
    for g in range(1, count + 1):
        s = [rng.randrange(16) for _ in range(5)]
        out.append(syl[s[0]] + syl[s[1]] + " " + syl[s[2]] + syl[s[3]] + syl[s[4]] + " " + str(g))
    return out


if __name__ == "__main__":
    players = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    register = [fold(name) for _, name in names(players)]
    surnames = Counter(name.split(" ", 1)[1] for name in register)
    top = ", ".join(f"{s} {c / players:.1%}" for s, c in surnames.most_common(3))
    print(f"register-like: {len(surnames)} distinct surnames (most common: {top})")
    counted("register-like", register)
    counted("NAMES=varied", varied(players))
