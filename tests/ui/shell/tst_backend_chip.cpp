// SPDX-License-Identifier: MIT
// The backend chip's device menu with an injected device count (no GPU needed): which entries
// it offers, what choosing one emits, how a session keeps the choice, and how the job lanes'
// backends follow it (JobRunner::setBackendSetup, with a stand-in backend that has devices).
#include <QAction>
#include <QMenu>
#include <QSignalSpy>
#include <QtTest>
#include <atomic>
#include <mutex>

#include "compute/core/error.h"
#include "ui/jobs/job_runner.h"
#include "ui/shell/backend_chip.h"
#include "ui/shell/session.h"

using cs::ui::BackendChip;

namespace {

// A CUDA-like backend with `count` devices that records the device sets it is given.
class DevicesBackend : public cs::Backend {
public:
    explicit DevicesBackend(int count) : m_count(count) {}
    std::string name() const override { return "cuda"; }
    cs::BackendInfo info() const override { return {"cuda", "test", 0, 0, 0, {}}; }
    int deviceCount() const override { return m_count; }
    std::vector<int> devices() const override {
        const std::lock_guard lock(m_mutex);
        return m_devices;
    }
    void setDevices(const std::vector<int>& devices) override {
        for (int d : devices)
            if (d >= m_count)
                throw cs::Error("CUDA device " + std::to_string(d) + " does not exist");
        const std::lock_guard lock(m_mutex);
        m_devices = devices;
        ++m_changes;
    }
    int changes() const {
        const std::lock_guard lock(m_mutex);
        return m_changes;
    }

private:
    int m_count;
    mutable std::mutex m_mutex;
    std::vector<int> m_devices{0};
    int m_changes = 0;
};

QStringList texts(const std::vector<BackendChip::DeviceEntry>& entries) {
    QStringList out;
    for (const auto& e : entries)
        out << e.text + (e.checked ? QStringLiteral(" *") : QString());
    return out;
}

}  // namespace

class TestBackendChip : public QObject {
    Q_OBJECT

private slots:
    void entries() {
        QVERIFY(BackendChip::deviceEntries(0, {}).empty());
        QVERIFY(BackendChip::deviceEntries(1, {}).empty());  // one GPU: nothing to choose
        QCOMPARE(texts(BackendChip::deviceEntries(2, {})),
                 (QStringList{"GPU 0 *", "GPU 1", "All GPUs (2)"}));
        QCOMPARE(texts(BackendChip::deviceEntries(2, {1})),
                 (QStringList{"GPU 0", "GPU 1 *", "All GPUs (2)"}));
        const auto four = BackendChip::deviceEntries(4, {0, 1, 2, 3});
        QCOMPARE(texts(four), (QStringList{"GPU 0", "GPU 1", "GPU 2", "GPU 3", "All GPUs (4) *"}));
        QCOMPARE(four.back().devices, (std::vector<int>{0, 1, 2, 3}));
        QCOMPARE(four[2].devices, (std::vector<int>{2}));
    }

    void menuChoosesDevices() {
        BackendChip chip;
        QSignalSpy changed(&chip, &BackendChip::deviceChoiceChanged);
        chip.setDeviceCount(1);
        std::unique_ptr<QMenu> none(chip.makeDeviceMenu(nullptr));
        QVERIFY(none->actions().isEmpty());

        chip.setDeviceCount(3);
        std::unique_ptr<QMenu> menu(chip.makeDeviceMenu(nullptr));
        const QList<QAction*> actions = menu->actions();
        QCOMPARE(actions.size(), 4);
        QCOMPARE(actions.back()->text(), QStringLiteral("All GPUs (3)"));
        QVERIFY(actions.front()->isChecked());
        actions.back()->trigger();
        QCOMPARE(changed.size(), 1);
        QCOMPARE(chip.deviceChoice(), (std::vector<int>{0, 1, 2}));
        QCOMPARE(changed.front().front().value<std::vector<int>>(), (std::vector<int>{0, 1, 2}));
        // The same choice again changes nothing.
        chip.setDeviceChoice({0, 1, 2});
        QCOMPARE(changed.size(), 1);
        std::unique_ptr<QMenu> again(chip.makeDeviceMenu(nullptr));
        QVERIFY(again->actions().back()->isChecked());
        again->actions()[1]->trigger();
        QCOMPARE(chip.deviceChoice(), std::vector<int>{1});
        QCOMPARE(changed.size(), 2);
    }

    void chipTextNamesTheChoice() {
        BackendChip chip;
        chip.showFallback(QStringLiteral("cuda"), QStringLiteral("test"));  // a chip text
        chip.setDeviceCount(2);
        chip.setDeviceChoice({0, 1});
        QVERIFY2(chip.text().contains(QStringLiteral("GPUs 0,1")), qPrintable(chip.text()));
    }

    void sessionKeepsTheChoice() {
        cs::ui::Session s;
        s.points = cs::ui::SessionData{.demoPoints = 1000};
        s.devices = {0, 1};
        const QByteArray json = cs::ui::sessionToJson(s);
        QVERIFY(json.contains("\"devices\": \"0,1\""));
        QString error;
        const auto back = cs::ui::sessionFromJson(json, QStringLiteral("t.json"), {}, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->devices, (std::vector<int>{0, 1}));

        s.devices.clear();  // the default is not written
        QVERIFY(!cs::ui::sessionToJson(s).contains("devices"));

        QByteArray bad = json;
        bad.replace("\"devices\": \"0,1\"", "\"devices\": \"0,x\"");
        QVERIFY(!cs::ui::sessionFromJson(bad, QStringLiteral("t.json"), {}, &error));
        QVERIFY2(error.contains(QStringLiteral("devices")) && error.contains(QStringLiteral("'x'")),
                 qPrintable(error));
    }

    void lanesFollowTheChoice() {
        auto backend = std::make_shared<DevicesBackend>(2);
        auto cpu = std::make_shared<DevicesBackend>(0);  // the fallback is left alone
        cs::ui::JobRunner runner([backend] { return backend; }, [cpu] { return cpu; });
        auto runOnce = [&]() -> QString {
            QSignalSpy done(&runner, &cs::ui::JobRunner::finished);
            QSignalSpy failed(&runner, &cs::ui::JobRunner::failed);
            runner.submit<int>(QStringLiteral("knn"),
                               [](cs::Backend&, cs::JobControl&) { return 1; });
            if (!QTest::qWaitFor([&] { return done.size() + failed.size() == 1; }, 10000))
                return QStringLiteral("no answer");
            return failed.isEmpty() ? QString()
                                    : failed.front().front().value<cs::ui::JobOutcome>().error;
        };
        const auto setup = [&runner](std::vector<int> devices) {
            runner.setBackendSetup([devices](cs::Backend& b) {
                if (b.devices() != devices) b.setDevices(devices);
            });
        };
        QVERIFY(runOnce().isEmpty());
        QCOMPARE(backend->changes(), 0);
        setup({0, 1});
        QVERIFY(runOnce().isEmpty());
        QCOMPARE(backend->devices(), (std::vector<int>{0, 1}));
        QVERIFY(runOnce().isEmpty());
        QCOMPARE(backend->changes(), 1);  // set once, not before every job
        setup({5});
        QVERIFY(runOnce().contains(QStringLiteral("device 5 does not exist")));
        QCOMPARE(cpu->changes(), 0);
    }
};

QTEST_MAIN(TestBackendChip)
#include "tst_backend_chip.moc"
