// SPDX-License-Identifier: MIT
#include "ui/views/legend.h"

#include <QFontMetrics>
#include <QLinearGradient>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>

#include "ui/views/colour_maps.h"

namespace cs::ui {
namespace {

constexpr int kPadding = 10;
constexpr int kSwatch = 12;
constexpr int kBarWidth = 14;
constexpr int kBarHeight = 160;
constexpr int kHistogramWidth = 36;

QString countText(std::size_t n) {
    return QLocale().toString(qulonglong(n));
}

QString valueText(double v) {
    return QString::number(v, 'g', 5);
}

int visibleRows(const Legend& legend) {
    const int n = int(legend.entries.size());
    return n > Legend::kMaxRows ? Legend::kMaxRows - 1 : n;
}

}  // namespace

QStringList Legend::notes() const {
    QStringList out;
    if (kind != Kind::ColourBar) return out;
    if (!rangeNote.isEmpty()) out << rangeNote;
    if (below > 0 || above > 0)
        out << (estimated ? QObject::tr("about %1 below, %2 above")
                          : QObject::tr("%1 below, %2 above"))
                   .arg(countText(below), countText(above));
    return out;
}

QSize Legend::sizeHint(const QPainter& painter) const {
    return sizeHint(painter.font());
}

int Legend::entryAt(const QFont& font, const QPoint& topRight, const QPoint& pos) const {
    if (kind != Kind::Categories) return -1;
    // paint()'s geometry: the title, then one row per entry.
    const QSize size = sizeHint(font);
    const QRect box(topRight.x() - size.width(), topRight.y(), size.width(), size.height());
    if (!box.contains(pos)) return -1;
    QFont bold = font;
    bold.setBold(true);
    const int line = QFontMetrics(font).height() + 3;
    const int top = box.top() + kPadding + QFontMetrics(bold).height() + 6;
    if (pos.y() < top) return -1;
    const int row = (pos.y() - top) / line;
    return row < visibleRows(*this) ? row : -1;
}

QSize Legend::sizeHint(const QFont& font) const {
    if (kind == Kind::None) return {};
    const QFontMetrics fm(font);
    QFont bold = font;
    bold.setBold(true);
    const QFontMetrics fmBold(bold);
    const int line = fm.height() + 3;
    int width = fmBold.horizontalAdvance(title);
    int height = fmBold.height() + 6;
    if (kind == Kind::Categories) {
        int nameWidth = 0;
        int countWidth = 0;
        const int rows = visibleRows(*this);
        for (int i = 0; i < rows; ++i) {
            nameWidth = std::max(nameWidth, fm.horizontalAdvance(entries[i].name));
            countWidth = std::max(countWidth, fm.horizontalAdvance(countText(entries[i].count)));
        }
        width = std::max(width, kSwatch + 8 + nameWidth + 16 + countWidth);
        height += rows * line;
        if (rows < int(entries.size())) {
            const QString more = QObject::tr("+ %1 more").arg(int(entries.size()) - rows);
            width = std::max(width, fm.horizontalAdvance(more));
            height += line;
        }
    } else {
        const int labels = std::max(fm.horizontalAdvance(valueText(maximum)),
                                    fm.horizontalAdvance(valueText(minimum)));
        const int histogramWidth = histogram.empty() ? 0 : kHistogramWidth + 4;
        width = std::max(width, kBarWidth + histogramWidth + 8 + labels);
        height += kBarHeight + fm.height() / 2;
        for (const QString& note : notes()) {
            width = std::max(width, fm.horizontalAdvance(note));
            height += line;
        }
    }
    return {width + 2 * kPadding, height + 2 * kPadding};
}

void Legend::paint(QPainter& painter, const QPoint& topRight, const QPalette& palette,
                   const std::vector<std::int32_t>& highlighted) const {
    if (kind == Kind::None) return;
    const QSize size = sizeHint(painter);
    const QRect box(topRight.x() - size.width(), topRight.y(), size.width(), size.height());

    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    QColor background = palette.color(QPalette::Window);
    background.setAlpha(225);
    painter.setPen(QPen(palette.color(QPalette::Mid), 1));
    painter.setBrush(background);
    painter.drawRoundedRect(QRectF(box).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);

    const QFont normal = painter.font();
    const QFontMetrics fm(normal);
    QFont bold = normal;
    bold.setBold(true);
    const QFontMetrics fmBold(bold);
    const int line = fm.height() + 3;
    const int left = box.left() + kPadding;
    const int right = box.right() - kPadding;
    int y = box.top() + kPadding;

    painter.setPen(palette.color(QPalette::WindowText));
    painter.setFont(bold);
    painter.drawText(QRect(left, y, right - left, fmBold.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, title);
    painter.setFont(normal);
    y += fmBold.height() + 6;

    if (kind == Kind::Categories) {
        const int rows = visibleRows(*this);
        for (int i = 0; i < rows; ++i) {
            const Entry& e = entries[i];
            if (e.category && std::find(highlighted.begin(), highlighted.end(), *e.category) !=
                                  highlighted.end()) {
                QColor mark = palette.color(QPalette::Highlight);
                mark.setAlpha(90);
                painter.fillRect(QRect(left - 4, y, right - left + 8, line), mark);
            }
            const QRect swatch(left, y + (line - kSwatch) / 2, kSwatch, kSwatch);
            painter.setPen(QPen(palette.color(QPalette::Mid), 1));
            painter.setBrush(ColourMaps::toColor(e.rgba | 0xff000000u));
            painter.drawEllipse(swatch);
            painter.setPen(palette.color(QPalette::WindowText));
            const QRect text(left + kSwatch + 8, y, right - left - kSwatch - 8, line);
            painter.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, e.name);
            painter.setPen(palette.color(QPalette::PlaceholderText));
            painter.drawText(text, Qt::AlignRight | Qt::AlignVCenter, countText(e.count));
            y += line;
        }
        if (rows < int(entries.size())) {
            painter.setPen(palette.color(QPalette::PlaceholderText));
            painter.drawText(QRect(left, y, right - left, line), Qt::AlignLeft | Qt::AlignVCenter,
                             QObject::tr("+ %1 more").arg(int(entries.size()) - rows));
        }
    } else {
        const QRect bar(left, y + fm.height() / 4, kBarWidth, kBarHeight);
        QLinearGradient gradient(bar.bottomLeft(), bar.topLeft());
        // Stepped maps get hard band edges; smooth ones enough stops to follow their curve.
        const int stops = map == ColourMaps::Map::Categorical ? 10 : 32;
        for (int i = 0; i <= stops; ++i) {
            if (map == ColourMaps::Map::Categorical) {
                const double lo = double(i) / stops, hi = double(i + 1) / stops;
                if (i == stops) break;
                gradient.setColorAt(lo, ColourMaps::colour(map, (lo + hi) / 2));
                gradient.setColorAt(std::max(lo, hi - 1e-4),
                                    ColourMaps::colour(map, (lo + hi) / 2));
            } else {
                gradient.setColorAt(double(i) / stops, ColourMaps::colour(map, double(i) / stops));
            }
        }
        painter.setPen(QPen(palette.color(QPalette::Mid), 1));
        painter.setBrush(gradient);
        painter.drawRect(bar);
        int textLeft = bar.right() + 8;
        if (!histogram.empty()) {
            // The distribution beside the bar, bin i at the height of its values' colour.
            const QRect area(bar.right() + 4, bar.top(), kHistogramWidth, bar.height());
            const std::size_t peak = *std::max_element(histogram.begin(), histogram.end());
            QColor ink = palette.color(QPalette::WindowText);
            ink.setAlpha(150);
            painter.setPen(Qt::NoPen);
            painter.setBrush(ink);
            const double binHeight = double(area.height()) / double(histogram.size());
            for (std::size_t i = 0; i < histogram.size() && peak > 0; ++i) {
                const double w = double(area.width()) * double(histogram[i]) / double(peak);
                const double top = area.bottom() + 1 - binHeight * double(i + 1);
                if (histogram[i] > 0)
                    painter.drawRect(QRectF(area.left(), top, std::max(w, 1.0), binHeight));
            }
            textLeft = area.right() + 8;
        }
        painter.setPen(palette.color(QPalette::WindowText));
        painter.drawText(
            QRect(textLeft, bar.top() - fm.height() / 2, right - textLeft, fm.height()),
            Qt::AlignLeft | Qt::AlignVCenter, valueText(maximum));
        painter.drawText(
            QRect(textLeft, bar.bottom() - fm.height() / 2, right - textLeft, fm.height()),
            Qt::AlignLeft | Qt::AlignVCenter, valueText(minimum));
        y = bar.bottom() + fm.height() / 2 + 2;
        painter.setPen(palette.color(QPalette::PlaceholderText));
        for (const QString& note : notes()) {
            painter.drawText(QRect(left, y, right - left, line), Qt::AlignLeft | Qt::AlignVCenter,
                             note);
            y += line;
        }
    }
    painter.restore();
}

}  // namespace cs::ui
